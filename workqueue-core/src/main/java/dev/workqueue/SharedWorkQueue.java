package dev.workqueue;

/**
 * A work queue whose state several processes share, each through a handle of its own (the
 * Redis backend's queues). Integrations use it where one process's view differs from the
 * shared one: metrics, shutdown and health.
 */
public interface SharedWorkQueue {

	/**
	 * Returns whether this handle reports the shared gauges (depth, waiting items) for
	 * every handle. One handle at a time does, so that a gauge summed over the processes
	 * gives the shared figure once; the others report zero.
	 * @return whether this handle is the reporter now
	 */
	boolean reportsSharedGauges();

	/**
	 * Hands every item this handle holds back to the queue at once, unprocessed, for a
	 * shutdown whose workers did not finish in time; other processes take them over.
	 * @return how many items were handed back
	 */
	int handBack();

}
