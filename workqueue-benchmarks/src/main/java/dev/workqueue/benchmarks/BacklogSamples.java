package dev.workqueue.benchmarks;

/**
 * The items a pipeline's producers have added and its workers not yet processed, sampled
 * each time an invocation's batch is done and averaged over an iteration: which side sets
 * an end-to-end rate. Near the pipeline's cap the workers do (the producers wait for
 * room); near 0 the producers' add round trips do (the workers wait for items). Items
 * processed in other JVMs are reported a few milliseconds late, which reads as a few more
 * waiting.
 * <p>
 * Not thread-safe: sampled, read and reset by the benchmark thread only.
 */
final class BacklogSamples {

	private long sum;

	private long samples;

	void sample(long backlog) {
		this.sum += backlog;
		this.samples++;
	}

	/** Returns the mean of the samples since the last reset, 0 if none. */
	double mean() {
		return (this.samples == 0) ? 0 : (double) this.sum / this.samples;
	}

	void reset() {
		this.sum = 0;
		this.samples = 0;
	}

}
