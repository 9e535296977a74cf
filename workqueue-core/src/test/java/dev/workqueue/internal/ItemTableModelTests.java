package dev.workqueue.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import dev.workqueue.internal.ItemTableTests.Entry;
import dev.workqueue.internal.ItemTableTests.Key;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fills an {@link ItemTable} to a random peak, below or across the size where it turns
 * from one array into segments, with removals mixed in, and empties it again, against a
 * {@link HashMap}: every answer, the size, the iteration and the memory bound agree at
 * checkpoints along the way.
 */
class ItemTableModelTests {

	@Property(tries = 25)
	void fillingAndEmptyingAgreesWithAHashMap(@ForAll @IntRange(min = 1, max = 140_000) int peak,
			@ForAll("hashes") Hashes hashes, @ForAll boolean shrinks, @ForAll long seed) {
		ItemTable<Key, Entry> table = new ItemTable<>(shrinks);
		Map<Key, Entry> model = new HashMap<>();
		Random random = new Random(seed);
		int checkpoint = Math.max(1, peak / 4);
		List<Entry> live = new ArrayList<>();
		for (int id = 0; id < peak; id++) {
			Key key = new Key(id, hashes.of(id, random));
			Entry entry = new Entry(key);
			assertThat(table.putIfAbsent(entry)).isNull();
			model.put(key, entry);
			live.add(entry);
			// Now and then an item added again, or one removed, by entry or by key.
			int roll = random.nextInt(8);
			if (roll == 0) {
				Entry again = new Entry(new Key(id, key.hash()));
				assertThat(table.putIfAbsent(again)).isSameAs(entry);
			}
			else if (roll == 1) {
				int index = random.nextInt(live.size());
				Entry gone = live.get(index);
				live.set(index, live.get(live.size() - 1));
				live.remove(live.size() - 1);
				model.remove(gone.item);
				if (random.nextBoolean()) {
					table.remove(gone, random.nextBoolean());
				}
				else {
					assertThat(table.removeItem(new Key(gone.item.id(), gone.item.hash()))).isSameAs(gone);
				}
			}
			if (id % checkpoint == 0) {
				agree(table, model);
			}
		}
		agree(table, model);
		Collections.shuffle(live, random);
		for (int i = 0; i < live.size(); i++) {
			table.remove(live.get(i));
			model.remove(live.get(i).item);
			if (i % checkpoint == 0) {
				agree(table, model);
			}
		}
		assertThat(table.size()).isZero();
		if (shrinks) {
			assertThat(table.capacity()).isEqualTo(16);
			assertThat(table.segmentCount()).isOne();
		}
	}

	/** Checks with plain comparisons, one assertion each: AssertJ per entry is slow. */
	private static void agree(ItemTable<Key, Entry> table, Map<Key, Entry> model) {
		assertThat(table.size()).isEqualTo(model.size());
		assertThat(table.capacity()).as("at most half full").isGreaterThanOrEqualTo(2 * model.size());
		List<Key> wrong = new ArrayList<>();
		model.forEach((key, entry) -> {
			if (table.get(new Key(key.id(), key.hash())) != entry) {
				wrong.add(key);
			}
		});
		assertThat(wrong).as("found otherwise than the model").isEmpty();
		Set<Entry> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		table.forEach((entry) -> {
			if (!seen.add(entry) || model.get(entry.item) != entry) {
				wrong.add(entry.item);
			}
		});
		assertThat(wrong).as("visited twice or not in the model").isEmpty();
		assertThat(seen).hasSameSizeAs(model.values());
	}

	@Provide
	Arbitrary<Hashes> hashes() {
		return Arbitraries.of(Hashes.values());
	}

	/** Families of hash codes. */
	enum Hashes {

		CONSECUTIVE {
			@Override
			int of(int id, Random random) {
				return id;
			}
		},

		RANDOM {
			@Override
			int of(int id, Random random) {
				return random.nextInt();
			}
		},

		/** Low bits all zero, as {@code Double}'s or shifted ids have. */
		SHIFTED {
			@Override
			int of(int id, Random random) {
				return id << 13;
			}
		},

		/** Two items per hash code: {@code equals} decides. */
		PAIRED {
			@Override
			int of(int id, Random random) {
				return id >>> 1;
			}
		};

		abstract int of(int id, Random random);

	}

}
