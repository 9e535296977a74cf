package dev.workqueue.timer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link HierarchicalWheel}, the wheel's slots in tick time, driven by explicit
 * ticks without threads or clocks.
 */
class HierarchicalWheelTests {

	private static final long INTERVAL = 10;

	static Stream<Arguments> dueTimes() {
		List<Arguments> cases = new ArrayList<>();
		for (int numSlots : new int[] { 1, 4, 64 }) {
			for (long startTick : new long[] { 0, 3, 7, 1_000 }) {
				for (long delay : new long[] { 0, 1, 9, 10, 11, 39, 40, 41, 400, 4_000, 1_000_000,
						1_000_000_000_000L }) {
					cases.add(Arguments.of(numSlots, startTick, delay));
				}
			}
		}
		return cases.stream();
	}

	@ParameterizedTest(name = "numSlots {0}, from tick {1}, delay {2}")
	@MethodSource("dueTimes")
	void entryComesOutAtTheFirstTickBoundaryAtOrAfterItsDueTime(int numSlots, long startTick, long delay) {
		HierarchicalWheel<String, String> wheel = new HierarchicalWheel<>(INTERVAL, numSlots);
		assertThat(takeUpTo(wheel, startTick)).isEmpty();
		long dueNanos = startTick * INTERVAL + delay;
		long expectedTick = Math.max(startTick, ceilDiv(dueNanos, INTERVAL));
		wheel.schedule(new TimerEntry<>("k", "v", dueNanos));
		if (expectedTick > startTick) {
			assertThat(takeUpTo(wheel, expectedTick - 1)).isEmpty();
		}
		assertThat(takeUpTo(wheel, expectedTick)).extracting((entry) -> entry.item).containsExactly("k");
		assertThat(wheel.nextWorkTick()).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void dueTimeOnTheCurrentSlotDoesNotWaitAnExtraRevolution() {
		HierarchicalWheel<String, String> wheel = new HierarchicalWheel<>(INTERVAL, 4);
		takeUpTo(wheel, 2);
		// Tick 6 maps to slot 2, the slot just reached: it is due one revolution on.
		wheel.schedule(new TimerEntry<>("k", "v", 6 * INTERVAL));
		assertThat(takeUpTo(wheel, 5)).isEmpty();
		assertThat(takeUpTo(wheel, 6)).hasSize(1);
	}

	@Test
	void emptyWheelHasNoWork() {
		HierarchicalWheel<String, String> wheel = new HierarchicalWheel<>(INTERVAL, 8);
		assertThat(wheel.nextWorkTick()).isEqualTo(Long.MAX_VALUE);
		assertThat(wheel.advance(1_000_000)).isNull();
		assertThat(wheel.currentTick()).isEqualTo(1_000_000);
	}

	@Test
	void nextWorkTickSkipsEmptyTicksAndVisitsEachLevelOnce() {
		HierarchicalWheel<String, String> wheel = new HierarchicalWheel<>(INTERVAL, 8);
		long dueTick = 1_000_000;
		wheel.schedule(new TimerEntry<>("k", "v", dueTick * INTERVAL));
		List<Long> wakeTicks = new ArrayList<>();
		List<TimerEntry<String, String>> taken = new ArrayList<>();
		while (taken.isEmpty()) {
			long tick = wheel.nextWorkTick();
			assertThat(tick).isLessThanOrEqualTo(dueTick);
			wakeTicks.add(tick);
			taken.addAll(takeUpTo(wheel, tick));
		}
		// 8 slots of 1 tick, then levels of 64 slots of 8, 512, 32768 and 2097152 ticks.
		assertThat(wakeTicks).hasSizeLessThanOrEqualTo(5).last().isEqualTo(dueTick);
	}

	@Test
	void unlinkedEntryNeverComesOut() {
		HierarchicalWheel<String, String> wheel = new HierarchicalWheel<>(INTERVAL, 4);
		TimerEntry<String, String> near = new TimerEntry<>("near", "v", 2 * INTERVAL);
		TimerEntry<String, String> far = new TimerEntry<>("far", "v", 500 * INTERVAL);
		TimerEntry<String, String> kept = new TimerEntry<>("kept", "v", 500 * INTERVAL);
		wheel.schedule(near);
		wheel.schedule(far);
		wheel.schedule(kept);
		near.unlink();
		far.unlink();
		assertThat(takeUpTo(wheel, 10_000)).extracting((entry) -> entry.item).containsExactly("kept");
	}

	@Test
	void entriesOfOneTickComeOutInDueOrder() {
		HierarchicalWheel<Integer, String> wheel = new HierarchicalWheel<>(INTERVAL, 4);
		for (int i = 9; i >= 0; i--) {
			wheel.schedule(new TimerEntry<>(i, "v", 40 * INTERVAL + 1 + i));
		}
		assertThat(takeUpTo(wheel, 41)).extracting((entry) -> entry.item).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
	}

	@Test
	void cascadeOfALargeSlotIsSplitIntoChunks() {
		HierarchicalWheel<Integer, String> wheel = new HierarchicalWheel<>(INTERVAL, 4);
		int count = HierarchicalWheel.CASCADE_BUDGET * 2 + 5;
		for (int i = 0; i < count; i++) {
			wheel.schedule(new TimerEntry<>(i, "v", (100 + i % 3) * INTERVAL));
		}
		int chunks = 0;
		List<TimerEntry<Integer, String>> taken = new ArrayList<>();
		while (wheel.nextWorkTick() <= 102) {
			TimerEntry<Integer, String> batch = wheel.advance(102);
			if (batch == null) {
				chunks++;
			}
			for (TimerEntry<Integer, String> entry = batch; entry != null; entry = entry.next) {
				taken.add(entry);
			}
		}
		assertThat(chunks).isGreaterThanOrEqualTo(2);
		assertThat(taken).hasSize(count);
	}

	@Test
	void entryDueAtTheEndOfTimeWaitsInTheTopLevel() {
		HierarchicalWheel<String, String> wheel = new HierarchicalWheel<>(2, 1);
		wheel.schedule(new TimerEntry<>("never", "v", Long.MAX_VALUE));
		wheel.schedule(new TimerEntry<>("soon", "v", 5));
		assertThat(takeUpTo(wheel, 1L << 40)).extracting((entry) -> entry.item).containsExactly("soon");
		assertThat(wheel.nextWorkTick()).isGreaterThan(1L << 40);
		assertThat(takeUpTo(wheel, Long.MAX_VALUE - 1)).extracting((entry) -> entry.item).containsExactly("never");
		assertThat(wheel.nextWorkTick()).isEqualTo(Long.MAX_VALUE);
	}

	@Property(tries = 300)
	void everyEntryComesOutOnceAtItsTickInDueOrder(@ForAll @IntRange(min = 1, max = 70) int numSlots,
			@ForAll @LongRange(min = 1, max = 1_000) long intervalNanos,
			@ForAll @Size(max = 60) List<@LongRange(max = 5_000_000) Long> dueTimes,
			@ForAll @Size(min = 1, max = 20) List<@LongRange(max = 2_000) Long> jumps,
			@ForAll @Size(max = 20) List<@IntRange(max = 59) Integer> removals) {
		HierarchicalWheel<Integer, Long> wheel = new HierarchicalWheel<>(intervalNanos, numSlots);
		Map<Integer, TimerEntry<Integer, Long>> pending = new HashMap<>();
		for (int i = 0; i < dueTimes.size(); i++) {
			TimerEntry<Integer, Long> entry = new TimerEntry<>(i, dueTimes.get(i), dueTimes.get(i));
			wheel.schedule(entry);
			pending.put(i, entry);
		}
		for (int index : removals) {
			TimerEntry<Integer, Long> entry = pending.remove(index);
			if (entry != null) {
				entry.unlink();
			}
		}
		// Entries of tick 0 are due at once: the first advance hands them out.
		long nowTick = 0;
		long previousTick = -1;
		long previousDueNanos = Long.MIN_VALUE;
		for (long jump : jumps) {
			nowTick += jump * jump;
			for (TimerEntry<Integer, Long> entry : takeUpTo(wheel, nowTick)) {
				long tick = ceilDiv(entry.dueNanos, intervalNanos);
				assertThat(tick).as("never early").isLessThanOrEqualTo(nowTick);
				assertThat(tick).as("never held past its tick").isGreaterThan(previousTick);
				assertThat(entry.dueNanos).as("due order").isGreaterThanOrEqualTo(previousDueNanos);
				previousDueNanos = entry.dueNanos;
				assertThat(pending.remove(entry.item)).as("once").isSameAs(entry);
			}
			previousTick = nowTick;
		}
		for (TimerEntry<Integer, Long> entry : takeUpTo(wheel, Long.MAX_VALUE / intervalNanos - 1)) {
			assertThat(ceilDiv(entry.dueNanos, intervalNanos)).isGreaterThan(nowTick);
			assertThat(pending.remove(entry.item)).as("once").isSameAs(entry);
		}
		assertThat(pending).isEmpty();
	}

	/** Advances until every tick up to {@code nowTick} is done, as the wheel's thread. */
	static <K, V> List<TimerEntry<K, V>> takeUpTo(HierarchicalWheel<K, V> wheel, long nowTick) {
		List<TimerEntry<K, V>> taken = new ArrayList<>();
		while (true) {
			TimerEntry<K, V> batch = wheel.advance(nowTick);
			if (batch == null && wheel.nextWorkTick() > nowTick) {
				return taken;
			}
			for (TimerEntry<K, V> entry = batch; entry != null; entry = entry.next) {
				assertThat(entry.isLinked()).isFalse();
				taken.add(entry);
			}
		}
	}

	private static long ceilDiv(long dividend, long divisor) {
		return -Math.floorDiv(-dividend, divisor);
	}

}
