package dev.workqueue.benchmarks;

import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Reports figures that are not times (bytes, CPU milliseconds, lateness, counts) through
 * JMH {@code @AuxCounters(EVENTS)} fields.
 * <p>
 * JMH adds such a counter up over every measured iteration of every fork. Each iteration
 * therefore reports its figure times {@link #share}, so that the total JMH prints is the
 * mean over all measured iterations. {@code summarize.py} multiplies the raw
 * per-iteration values back and computes the mean and its error itself.
 */
final class Figures {

	private Figures() {
	}

	/**
	 * Returns the weight of one measured iteration: one over the number of measured
	 * iterations of the whole run.
	 * @param params the running benchmark's parameters
	 * @return the weight
	 */
	static double share(BenchmarkParams params) {
		return 1.0 / (Math.max(1, params.getForks()) * Math.max(1, params.getMeasurement().getCount()));
	}

}
