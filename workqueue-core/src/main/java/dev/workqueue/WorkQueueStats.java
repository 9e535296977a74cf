package dev.workqueue;

/**
 * A reading of a queue's gauges at one moment.
 * <p>
 * The time-based figures are tracked only when the queue was built with
 * {@link WorkQueues.Builder#metrics(WorkQueueMetrics) metrics}: without them the queue
 * never reads its clock on the hot path, and they read zero.
 *
 * @param depth items ready to be handed out (the queue's {@code size()})
 * @param processing items handed out and not yet done
 * @param waiting items waiting for a delay (delaying queues only)
 * @param retries {@code addAfter} calls so far (client-go's {@code retries_total})
 * @param headQueuedNanos how long the item next in line has been queued (an item added
 * again while processing lines up behind older ones with its first add's time, so this is
 * not always the oldest)
 * @param unfinishedWorkNanos summed time the items being processed have been in process
 * (client-go's {@code unfinished_work_seconds})
 * @param longestRunningProcessorNanos time the longest-running item has been in process
 * @param addedWhileProcessing items being processed that were added again meanwhile: they
 * line up again once done (client-go's dirty items that are also processing)
 */
public record WorkQueueStats(int depth, int processing, int waiting, long retries, long headQueuedNanos,
		long unfinishedWorkNanos, long longestRunningProcessorNanos, int addedWhileProcessing) {

	/**
	 * Returns client-go's {@code workqueue_depth}: items added and not yet handed out, so
	 * the ready items plus those added again while processing.
	 * @return {@code depth() + addedWhileProcessing()}
	 */
	public int pending() {
		return this.depth + this.addedWhileProcessing;
	}

	/**
	 * Returns a builder of figures by name, each zero until set: a queue that tracks some
	 * figures only sets those.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Builds a {@link WorkQueueStats} by naming its figures, which read zero unless set.
	 * Not thread-safe: one reading, on one thread.
	 */
	public static final class Builder {

		private int depth;

		private int processing;

		private int waiting;

		private long retries;

		private long headQueuedNanos;

		private long unfinishedWorkNanos;

		private long longestRunningProcessorNanos;

		private int addedWhileProcessing;

		private Builder() {
		}

		/**
		 * Sets {@link WorkQueueStats#depth()}.
		 * @param depth items ready to be handed out
		 * @return this builder
		 */
		public Builder depth(int depth) {
			this.depth = depth;
			return this;
		}

		/**
		 * Sets {@link WorkQueueStats#processing()}.
		 * @param processing items handed out and not yet done
		 * @return this builder
		 */
		public Builder processing(int processing) {
			this.processing = processing;
			return this;
		}

		/**
		 * Sets {@link WorkQueueStats#waiting()}.
		 * @param waiting items waiting for a delay
		 * @return this builder
		 */
		public Builder waiting(int waiting) {
			this.waiting = waiting;
			return this;
		}

		/**
		 * Sets {@link WorkQueueStats#retries()}.
		 * @param retries {@code addAfter} calls so far
		 * @return this builder
		 */
		public Builder retries(long retries) {
			this.retries = retries;
			return this;
		}

		/**
		 * Sets {@link WorkQueueStats#headQueuedNanos()}.
		 * @param headQueuedNanos how long the item next in line has been queued
		 * @return this builder
		 */
		public Builder headQueuedNanos(long headQueuedNanos) {
			this.headQueuedNanos = headQueuedNanos;
			return this;
		}

		/**
		 * Sets {@link WorkQueueStats#unfinishedWorkNanos()}.
		 * @param unfinishedWorkNanos summed time the items being processed have been in
		 * process
		 * @return this builder
		 */
		public Builder unfinishedWorkNanos(long unfinishedWorkNanos) {
			this.unfinishedWorkNanos = unfinishedWorkNanos;
			return this;
		}

		/**
		 * Sets {@link WorkQueueStats#longestRunningProcessorNanos()}.
		 * @param longestRunningProcessorNanos time the longest-running item has been in
		 * process
		 * @return this builder
		 */
		public Builder longestRunningProcessorNanos(long longestRunningProcessorNanos) {
			this.longestRunningProcessorNanos = longestRunningProcessorNanos;
			return this;
		}

		/**
		 * Sets {@link WorkQueueStats#addedWhileProcessing()}.
		 * @param addedWhileProcessing items being processed that were added again
		 * meanwhile
		 * @return this builder
		 */
		public Builder addedWhileProcessing(int addedWhileProcessing) {
			this.addedWhileProcessing = addedWhileProcessing;
			return this;
		}

		/**
		 * Returns the figures set so far.
		 * @return the reading
		 */
		public WorkQueueStats build() {
			return new WorkQueueStats(this.depth, this.processing, this.waiting, this.retries, this.headQueuedNanos,
					this.unfinishedWorkNanos, this.longestRunningProcessorNanos, this.addedWhileProcessing);
		}

	}

}
