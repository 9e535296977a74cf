package dev.workqueue.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The collections the JVM's garbage collectors have made so far and the time they took,
 * summed over the collectors, as their management beans count them. The difference of two
 * readings shows whether a collection fell inside a measurement, which a latency
 * percentile cannot tell apart from the code under test.
 *
 * @param collections the number of collections
 * @param millis their accumulated time in milliseconds
 */
record GcTotals(long collections, long millis) {

	/**
	 * Reads the totals now.
	 * @return the totals
	 */
	static GcTotals now() {
		long collections = 0;
		long millis = 0;
		for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
			// -1 means the collector does not count.
			collections += Math.max(0, collector.getCollectionCount());
			millis += Math.max(0, collector.getCollectionTime());
		}
		return new GcTotals(collections, millis);
	}

	/**
	 * Returns what was collected between {@code earlier} and this reading.
	 * @param earlier an earlier reading
	 * @return the difference
	 */
	GcTotals since(GcTotals earlier) {
		return new GcTotals(this.collections - earlier.collections, this.millis - earlier.millis);
	}

}
