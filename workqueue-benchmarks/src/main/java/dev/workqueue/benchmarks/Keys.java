package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Workload data made before measuring: distinct item keys and random delays, the same for
 * every contender of a benchmark.
 */
final class Keys {

	private Keys() {
	}

	/**
	 * Returns {@code count} distinct keys shaped like a controller's
	 * {@code namespace/name} keys, their hash codes already computed (and cached by
	 * {@link String}) so that no contender pays for the first hash.
	 * @param count the number of keys
	 * @return the keys
	 */
	static String[] distinct(int count) {
		String[] keys = new String[count];
		for (int i = 0; i < count; i++) {
			keys[i] = "namespace-" + (i % 16) + "/item-" + i;
			keys[i].hashCode();
		}
		return keys;
	}

	/**
	 * Returns {@code count} boxed indexes {@code 0..count-1}, for workloads that record
	 * per-item figures in arrays.
	 * @param count the number of keys
	 * @return the keys
	 */
	static Integer[] indexes(int count) {
		Integer[] keys = new Integer[count];
		for (int i = 0; i < count; i++) {
			keys[i] = i;
		}
		return keys;
	}

	/**
	 * Returns {@code count} delays drawn uniformly from {@code [min, max]}, from a fixed
	 * seed so that every contender and every fork gets the same sequence.
	 * @param count the number of delays
	 * @param min the shortest delay
	 * @param max the longest delay
	 * @return the delays
	 */
	static Duration[] delays(int count, Duration min, Duration max) {
		SplittableRandom random = new SplittableRandom(42);
		long minNanos = min.toNanos();
		long spanNanos = max.toNanos() - minNanos + 1;
		Duration[] delays = new Duration[count];
		for (int i = 0; i < count; i++) {
			delays[i] = Duration.ofNanos(minNanos + random.nextLong(spanNanos));
		}
		return delays;
	}

	/**
	 * Returns the delays in nanoseconds, for the peers that take a {@code long}.
	 * @param delays the delays
	 * @return the same delays in nanoseconds
	 */
	static long[] nanos(Duration[] delays) {
		long[] nanos = new long[delays.length];
		for (int i = 0; i < delays.length; i++) {
			nanos[i] = delays[i].toNanos();
		}
		return nanos;
	}

}
