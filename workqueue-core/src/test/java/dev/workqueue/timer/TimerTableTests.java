package dev.workqueue.timer;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TimerTable}: the intrusive key index of the timing wheel.
 */
class TimerTableTests {

	@Test
	void addedEntriesAreFoundByEqualKeys() {
		TimerTable<String, Integer> table = new TimerTable<>();
		TimerEntry<String, Integer> entry = new TimerEntry<>("a", 1, 0);
		table.add(entry);
		assertThat(table.get(new String("a"))).isSameAs(entry);
		assertThat(table.get("b")).isNull();
		assertThat(table.size()).isOne();
	}

	@Test
	void entriesSurviveResizesAndCollidingHashes() {
		TimerTable<CollidingKey, Integer> table = new TimerTable<>();
		List<TimerEntry<CollidingKey, Integer>> entries = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			TimerEntry<CollidingKey, Integer> entry = new TimerEntry<>(new CollidingKey(i), i, 0);
			entries.add(entry);
			table.add(entry);
		}
		assertThat(table.size()).isEqualTo(10_000);
		for (TimerEntry<CollidingKey, Integer> entry : entries) {
			assertThat(table.get(new CollidingKey(entry.value))).isSameAs(entry);
		}
		Set<Integer> seen = new HashSet<>();
		table.forEach((entry) -> assertThat(seen.add(entry.value)).isTrue());
		assertThat(seen).hasSize(10_000);
	}

	@Test
	void removeByKeyAndByIdentityUnchainFromAnyPositionInABucket() {
		TimerTable<CollidingKey, Integer> table = new TimerTable<>();
		List<TimerEntry<CollidingKey, Integer>> entries = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			TimerEntry<CollidingKey, Integer> entry = new TimerEntry<>(new CollidingKey(i), i, 0);
			entries.add(entry);
			table.add(entry);
		}
		for (int i = 0; i < 300; i += 3) {
			assertThat(table.remove((Object) new CollidingKey(i))).isSameAs(entries.get(i));
			table.remove(entries.get(i + 1));
		}
		assertThat(table.size()).isEqualTo(100);
		assertThat(table.remove((Object) new CollidingKey(0))).isNull();
		for (int i = 0; i < 300; i++) {
			TimerEntry<CollidingKey, Integer> expected = (i % 3 == 2) ? entries.get(i) : null;
			assertThat(table.get(new CollidingKey(i))).as("key %d", i).isSameAs(expected);
		}
	}

	@Test
	void clearEmptiesTheTable() {
		TimerTable<Integer, Integer> table = new TimerTable<>();
		for (int i = 0; i < 100; i++) {
			table.add(new TimerEntry<>(i, i, 0));
		}
		table.clear();
		assertThat(table.size()).isZero();
		assertThat(table.get(5)).isNull();
		table.forEach((entry) -> {
			throw new AssertionError("found " + entry.key);
		});
	}

	/** A key whose hash codes collide in groups of 64, high bits included. */
	private record CollidingKey(int id) {

		@Override
		public int hashCode() {
			return (this.id / 64) << 20;
		}

	}

}
