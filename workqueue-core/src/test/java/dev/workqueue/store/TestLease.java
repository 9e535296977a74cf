package dev.workqueue.store;

/** A lease of the tests' store: a token number. */
final class TestLease extends Lease {

	final long token;

	TestLease(String encoded, long token, long startedNanos, long validUntilNanos) {
		super(encoded, startedNanos, validUntilNanos);
		this.token = token;
	}

	TestLease(String encoded, long token) {
		this(encoded, token, 0, Long.MAX_VALUE);
	}

	@Override
	public String toString() {
		return encoded() + "#" + this.token;
	}

}
