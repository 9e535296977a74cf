package dev.workqueue.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ItemTable}, single-threaded, against a {@link HashMap}, including keys whose
 * hash codes collide and cluster.
 */
class ItemTableTests {

	private final ItemTable<Key, Entry> table = new ItemTable<>();

	@Test
	void randomOperationsAgreeWithAHashMap() {
		Map<Key, Entry> model = new HashMap<>();
		Random random = new Random(42);
		for (int step = 0; step < 100_000; step++) {
			// Half the keys share 50 hash codes, the others have consecutive ones: probe
			// runs that are long, meet and wrap around.
			int id = random.nextInt(3000);
			Key key = new Key(id, ((id & 1) == 0) ? id : (id % 50) * 64);
			Entry present = model.get(key);
			if (random.nextInt(3) > 0 || present == null) {
				Entry entry = new Entry(key);
				assertThat(this.table.putIfAbsent(entry)).isSameAs(present);
				model.putIfAbsent(key, entry);
			}
			else if (random.nextBoolean()) {
				this.table.remove(present);
				model.remove(key);
			}
			else {
				// By an equal key, not the entry's own.
				assertThat(this.table.removeItem(new Key(key.id, key.hash))).isSameAs(present);
				model.remove(key);
			}
			if (step % 1000 == 0) {
				assertThat(this.table.size()).isEqualTo(model.size());
				model.forEach((k, e) -> assertThat(this.table.get(new Key(k.id, k.hash))).isSameAs(e));
			}
		}
		model.values().forEach(this.table::remove);
		assertThat(this.table.size()).isZero();
		assertThat(this.table.capacity()).as("shrunk back").isEqualTo(16);
	}

	@Test
	void growsWhenHalfFullAndShrinksWhenNearlyEmpty() {
		Entry[] entries = new Entry[1000];
		for (int i = 0; i < entries.length; i++) {
			entries[i] = new Entry(new Key(i, i));
			this.table.putIfAbsent(entries[i]);
			assertThat(this.table.capacity()).isGreaterThanOrEqualTo(2 * this.table.size());
		}
		assertThat(this.table.capacity()).isEqualTo(2048);
		for (Entry entry : entries) {
			this.table.remove(entry);
			assertThat(this.table.capacity()).isLessThanOrEqualTo(Math.max(16, 8 * (this.table.size() + 1)));
		}
		assertThat(this.table.capacity()).isEqualTo(16);
	}

	@Test
	void removalsThatKeepTheArrayLeaveItToOneTrimStraightToAQuarterFull() {
		Entry[] entries = new Entry[10_000];
		for (int i = 0; i < entries.length; i++) {
			entries[i] = new Entry(new Key(i, i));
			this.table.putIfAbsent(entries[i]);
		}
		assertThat(this.table.capacity()).isEqualTo(32_768);
		for (int i = 100; i < entries.length; i++) {
			this.table.remove(entries[i], false);
		}
		assertThat(this.table.capacity()).as("kept").isEqualTo(32_768);
		this.table.trim();
		assertThat(this.table.capacity()).as("one resize, 100 entries a quarter full or less").isEqualTo(512);
		for (int i = 0; i < 100; i++) {
			assertThat(this.table.get(entries[i].item)).isSameAs(entries[i]);
		}
		this.table.trim();
		assertThat(this.table.capacity()).as("not under an eighth: no change").isEqualTo(512);
	}

	@Test
	void aTableToldNotToShrinkKeepsItsArrayUntilCleared() {
		ItemTable<Key, Entry> keeping = new ItemTable<>(false);
		Entry[] entries = new Entry[1000];
		for (int i = 0; i < entries.length; i++) {
			entries[i] = new Entry(new Key(i, i));
			keeping.putIfAbsent(entries[i]);
		}
		int grown = keeping.capacity();
		for (Entry entry : entries) {
			keeping.remove(entry);
		}
		assertThat(keeping.size()).isZero();
		assertThat(keeping.capacity()).isEqualTo(grown);
		keeping.clear();
		assertThat(keeping.capacity()).isEqualTo(16);
	}

	@Test
	void removingAMissingItemFindsNothing() {
		this.table.putIfAbsent(new Entry(new Key(1, 7)));
		assertThat(this.table.removeItem(new Key(2, 7))).isNull();
		assertThat(this.table.size()).isOne();
	}

	@Test
	void missingItemIsNotFound() {
		this.table.putIfAbsent(new Entry(new Key(1, 7)));
		assertThat(this.table.get(new Key(2, 7))).isNull();
		assertThat(this.table.get(new Key(1, 7))).isNotNull();
		this.table.clear();
		assertThat(this.table.get(new Key(1, 7))).isNull();
		assertThat(this.table.size()).isZero();
	}

	/** A key with a chosen hash code. */
	record Key(int id, int hash) {

		@Override
		public int hashCode() {
			return this.hash;
		}

	}

	static final class Entry extends KeyedEntry<Key> {

		Entry(Key key) {
			super(key);
		}

	}

}
