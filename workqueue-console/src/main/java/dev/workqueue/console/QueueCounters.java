package dev.workqueue.console;

/**
 * Where the rate sampler reads a queue's running totals of adds and retries.
 */
interface QueueCounters {

	/**
	 * Returns how many items were added to a queue so far.
	 * @param name the queue's name
	 * @return the total, {@link Double#NaN} when not counted
	 */
	double adds(String name);

	/**
	 * Returns how many retries (delayed adds) a queue had so far.
	 * @param name the queue's name
	 * @return the total, {@link Double#NaN} when not counted
	 */
	double retries(String name);

}
