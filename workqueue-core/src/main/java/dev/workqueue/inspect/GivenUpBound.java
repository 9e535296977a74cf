package dev.workqueue.inspect;

import java.time.Duration;
import java.util.Objects;

/**
 * How many given-up items a queue keeps, and for how long: its newest {@code keep}
 * records, each for {@code retention} after it was given up. Bounded so that items given
 * up again and again cannot fill the store.
 *
 * @param keep the most records kept, from 0 (0 keeps none) to 1,000,000
 * @param retention how long a record is kept, from 1 second to 100 years
 */
public record GivenUpBound(int keep, Duration retention) {

	/** What a queue keeps unless told: 1000 records, for 7 days. */
	public static final GivenUpBound DEFAULT = new GivenUpBound(1000, Duration.ofDays(7));

	/** The most records a queue may be told to keep. */
	public static final int MAX_KEEP = 1_000_000;

	/**
	 * Checks the bound.
	 * @throws IllegalArgumentException naming {@code keep} or {@code retention} when out
	 * of range
	 */
	public GivenUpBound {
		if (keep < 0 || keep > MAX_KEEP) {
			throw new IllegalArgumentException("keep must be from 0 to " + MAX_KEEP + ", was " + keep);
		}
		Objects.requireNonNull(retention, "retention");
		if (retention.compareTo(Duration.ofSeconds(1)) < 0 || retention.compareTo(Duration.ofDays(36_525)) > 0) {
			throw new IllegalArgumentException("retention must be from 1s to 100 years, was " + retention);
		}
	}

}
