package dev.workqueue.inspect;

/**
 * Where an item stands in its queue, as a console or a script sees it.
 */
public enum ItemState {

	/** Queued and due: handed out next, in the queue's order. */
	READY("ready"),

	/**
	 * Handed out and not done yet (or, on a shared store, claimed ahead for a waiting
	 * worker).
	 */
	PROCESSING("processing"),

	/** Added with a delay that has not passed yet. */
	WAITING("waiting"),

	/** A worker gave up on it (its retries ran out), or the codec could not decode it. */
	GIVEN_UP("given-up");

	private final String label;

	ItemState(String label) {
		this.label = label;
	}

	/**
	 * Returns the state's name in the console's page and JSON API.
	 * @return {@code ready}, {@code processing}, {@code waiting} or {@code given-up}
	 */
	public String label() {
		return this.label;
	}

	/**
	 * Returns the state with {@code label}.
	 * @param label {@code ready}, {@code processing}, {@code waiting} or {@code given-up}
	 * @return the state
	 * @throws IllegalArgumentException naming {@code state} if no state has that label
	 */
	public static ItemState ofLabel(String label) {
		for (ItemState state : values()) {
			if (state.label.equals(label)) {
				return state;
			}
		}
		throw new IllegalArgumentException(
				"state must be one of ready, processing, waiting, given-up, was '" + label + "'");
	}

}
