package dev.workqueue.spring.worker;

/**
 * What became of an item after one worker invocation; the {@code workqueue.outcome} key
 * value of the {@code workqueue.process} observation.
 */
public enum WorkOutcome {

	/**
	 * The method returned normally or {@code WorkResult.done()}: the item is forgotten.
	 */
	DONE("done"),

	/** The method returned {@code WorkResult.requeue()}: requeued with backoff. */
	REQUEUE("requeue"),

	/**
	 * The method returned {@code WorkResult.requeueAfter(d)}: requeued after {@code d}.
	 */
	REQUEUE_AFTER("requeue-after"),

	/** The method threw and the item will be retried with backoff. */
	FAILED("failed"),

	/**
	 * The method threw once more than {@code max-retries} allows, or the item could not
	 * be passed to it: the item is forgotten.
	 */
	GAVE_UP("gave-up");

	private final String value;

	WorkOutcome(String value) {
		this.value = value;
	}

	/**
	 * Returns the outcome as written in key values and logs.
	 * @return for example {@code requeue-after}
	 */
	public String value() {
		return this.value;
	}

}
