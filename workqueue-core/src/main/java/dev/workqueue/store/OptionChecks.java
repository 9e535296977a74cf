package dev.workqueue.store;

import java.time.Duration;
import java.util.Objects;

/**
 * Checks of the options of shared stores' builders, so that every store's message names
 * the option the same way. Part of the shared-store engine, used by store modules; may
 * change before 1.0.
 */
public final class OptionChecks {

	private OptionChecks() {
	}

	/**
	 * Returns a duration option if it is at least its floor.
	 * @param option the option's name, for the messages
	 * @param value the value given
	 * @param floor the shortest value accepted
	 * @return {@code value}
	 * @throws NullPointerException if {@code value} is {@code null}, naming the option
	 * @throws IllegalArgumentException if {@code value} is under {@code floor}, naming
	 * the option, the floor and the value
	 */
	public static Duration atLeast(String option, Duration value, Duration floor) {
		Objects.requireNonNull(value, option);
		if (value.compareTo(floor) < 0) {
			throw new IllegalArgumentException(option + " must be at least " + floor + ", was " + value);
		}
		return value;
	}

}
