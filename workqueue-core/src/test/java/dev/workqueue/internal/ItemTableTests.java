package dev.workqueue.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

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
	void growsFromOneArrayIntoSegmentsAndBackAsItFillsAndEmpties() {
		Entry[] entries = new Entry[200_000];
		for (int i = 0; i < entries.length; i++) {
			entries[i] = new Entry(new Key(i, i));
			this.table.putIfAbsent(entries[i]);
			if (i + 1 == ItemTable.SEGMENT_SLOTS / 2) {
				assertThat(this.table.segmentCount()).as("the largest single array, half full").isOne();
				assertThat(this.table.capacity()).isEqualTo(ItemTable.SEGMENT_SLOTS);
			}
			if (i == ItemTable.SEGMENT_SLOTS / 2) {
				assertThat(this.table.segmentCount()).as("one more: two segments").isEqualTo(2);
				assertThat(this.table.capacity()).isEqualTo(2 * ItemTable.SEGMENT_SLOTS);
			}
		}
		// The same capacity as one array would have: no byte more per entry.
		assertThat(this.table.capacity()).isEqualTo(524_288);
		assertThat(this.table.segmentCount()).isEqualTo(524_288 / ItemTable.SEGMENT_SLOTS);
		assertThat(notFound(List.of(entries))).isEmpty();
		assertThat(this.table.get(new Key(-1, -1))).isNull();
		for (int i = 0; i < entries.length; i += 2) {
			this.table.remove(entries[i], false);
		}
		Set<Entry> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		List<Entry> visited = new ArrayList<>();
		this.table.forEach((entry) -> {
			if (seen.add(entry)) {
				visited.add(entry);
			}
		});
		assertThat(seen).hasSize(100_000);
		assertThat(visited).as("each once, the odd ones").hasSize(100_000).allMatch((entry) -> entry.item.id % 2 == 1);
		List<Entry> removed = new ArrayList<>();
		for (int i = 1; i < entries.length; i += 2) {
			removed.add(this.table.removeItem(new Key(i, i)));
		}
		assertThat(removed).containsExactlyElementsOf(
				visited.stream().sorted(Comparator.comparingInt((entry) -> entry.item.id)).toList());
		assertThat(this.table.size()).isZero();
		assertThat(this.table.segmentCount()).as("one array again").isOne();
		assertThat(this.table.capacity()).isEqualTo(16);
	}

	@Test
	void aSegmentThatTheHashCodesCrowdGrowsAloneAndTheTableStaysCorrect() {
		for (int i = 0; i < 70_000; i++) {
			this.table.putIfAbsent(new Entry(new Key(i, i)));
		}
		assertThat(this.table.segmentCount()).isEqualTo(4);
		List<Entry> uniform = new ArrayList<>();
		this.table.forEach(uniform::add);
		uniform.forEach((entry) -> this.table.remove(entry, false));
		// Mixed hashes spread over the first quarter only: all in the first segment.
		List<Entry> crowded = new ArrayList<>();
		for (int i = 0; i < 40_000; i++) {
			crowded.add(new Entry(new Key(i, unmixed(i * 26_843))));
			this.table.putIfAbsent(crowded.get(i));
		}
		assertThat(this.table.segmentCount()).isEqualTo(4);
		assertThat(this.table.capacity()).as("the crowded segment doubled alone")
			.isEqualTo(5 * ItemTable.SEGMENT_SLOTS);
		assertThat(notFound(crowded)).isEmpty();
		assertThat(this.table.get(new Key(-1, unmixed(5 * 26_843)))).isNull();
		// Kept, then trimmed: one array with the crowded hashes in a quarter of it
		// would make long probe runs (one array's known weakness, not the test's point).
		crowded.forEach((entry) -> this.table.remove(entry, false));
		this.table.trim();
		assertThat(this.table.capacity()).isEqualTo(16);
	}

	@Test
	void aTableToldNotToShrinkKeepsItsSegmentsUntilCleared() {
		ItemTable<Key, Entry> keeping = new ItemTable<>(false);
		Entry[] entries = new Entry[100_000];
		for (int i = 0; i < entries.length; i++) {
			entries[i] = new Entry(new Key(i, i));
			keeping.putIfAbsent(entries[i]);
		}
		for (Entry entry : entries) {
			keeping.remove(entry);
		}
		assertThat(keeping.capacity()).isEqualTo(262_144);
		keeping.clear();
		assertThat(keeping.segmentCount()).isOne();
		assertThat(keeping.capacity()).isEqualTo(16);
		keeping.putIfAbsent(entries[0]);
		assertThat(keeping.get(entries[0].item)).isSameAs(entries[0]);
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

	@Test
	void aWalkStopsAtTheFirstEntryItsActionTurnsDownInEitherLayout() {
		for (int size : new int[] { 100, ItemTable.SEGMENT_SLOTS }) {
			this.table.clear();
			for (int i = 0; i < size; i++) {
				this.table.putIfAbsent(new Entry(new Key(i, i)));
			}
			assertThat(this.table.segmentCount()).isEqualTo((size == 100) ? 1 : 2);
			List<Entry> seen = new ArrayList<>();
			assertThat(this.table.forEachWhile((entry) -> seen.add(entry) && seen.size() < 10)).isFalse();
			assertThat(seen).hasSize(10).doesNotHaveDuplicates();
			seen.clear();
			assertThat(this.table.forEachWhile(seen::add)).as("an action that never turns one down").isTrue();
			assertThat(seen).hasSize(size).doesNotHaveDuplicates();
		}
	}

	@Test
	void entriesAreEveryEntryOnceInEitherLayout() {
		assertThat(this.table.entries()).isEmpty();
		for (int size : new int[] { 100, ItemTable.SEGMENT_SLOTS }) {
			this.table.clear();
			List<Entry> entries = new ArrayList<>();
			for (int i = 0; i < size; i++) {
				entries.add(new Entry(new Key(i, i)));
				this.table.putIfAbsent(entries.get(i));
			}
			assertThat(this.table.entries()).containsExactlyInAnyOrderElementsOf(entries);
		}
	}

	/** The entries that a look-up by an equal key does not find. */
	private List<Entry> notFound(List<Entry> entries) {
		return entries.stream()
			.filter((entry) -> this.table.get(new Key(entry.item.id, entry.item.hash)) != entry)
			.toList();
	}

	/**
	 * The hash code whose mixed value (the table's Fibonacci hashing) is {@code mixed}:
	 * times the inverse of the golden ratio modulo 2^32.
	 */
	static int unmixed(int mixed) {
		int golden = 0x9E3779B9;
		int inverse = golden;
		for (int i = 0; i < 5; i++) {
			inverse *= 2 - golden * inverse;
		}
		return mixed * inverse;
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
