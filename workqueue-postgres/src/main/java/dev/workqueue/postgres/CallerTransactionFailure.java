package dev.workqueue.postgres;

/**
 * A failure of an add made in the caller's transaction: the statement failed on the
 * caller's connection, so the database aborted that transaction, and the caller must hear
 * of it even when the handle is shutting down (which ignores its own adds' failures). It
 * reads as the {@link PostgresQueueException} it wraps.
 */
final class CallerTransactionFailure extends PostgresQueueException {

	CallerTransactionFailure(PostgresQueueException failure) {
		super(failure.reason(), failure.getMessage(), failure.getCause());
	}

}
