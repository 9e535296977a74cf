package dev.workqueue.spring.autoconfigure;

import java.util.List;
import java.util.Objects;

/**
 * Thrown at start-up when {@code workqueue.*} properties hold invalid values or unknown
 * keys. It lists every problem found, each naming the full key, for example
 * {@code workqueue.queues.orders.concurrency must be >= 1, was 0}.
 */
public final class InvalidWorkQueuePropertiesException extends IllegalStateException {

	private final List<String> problems;

	/**
	 * Creates an exception.
	 * @param problems the problems, at least one
	 */
	public InvalidWorkQueuePropertiesException(List<String> problems) {
		super("Invalid workqueue properties: " + String.join("; ", problems));
		this.problems = List.copyOf(Objects.requireNonNull(problems, "problems"));
	}

	/**
	 * Returns every problem found, each naming the full key.
	 * @return the problems, unmodifiable
	 */
	public List<String> getProblems() {
		return this.problems;
	}

}
