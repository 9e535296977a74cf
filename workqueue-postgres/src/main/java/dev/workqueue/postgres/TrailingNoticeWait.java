package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;

import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutorBase;

/**
 * Takes pgjdbc's wait after each notice off a {@code LISTEN} connection, so that a notice
 * reaches the waiting consumers as soon as it is read.
 * <p>
 * <b>Why.</b> Once {@code PGConnection.getNotifications(timeout)} has read a notice, it
 * asks whether more messages are pending before it returns, and that check reads the
 * socket with a 1 ms timeout whenever nothing more has arrived: it lasts its full
 * millisecond (1.1–1.2 ms measured here) for every batch of notices, the usual case.
 * pgjdbc skips that read while its stream's next check time lies ahead (a check that
 * found the stream at its end sets it), and the check still counts the bytes the socket
 * already holds. Setting that time to the far future on the connection therefore makes
 * the check answer from what has arrived: the notices already received come in the same
 * call, and a notice arriving later (or still encrypted in the socket, over SSL or GSS)
 * is read by the next wait, at once. The pgjdbc sources name that check
 * {@code PGStream.hasMessagePending}; besides the wait for notices only {@code COPY}
 * calls it, which the connection never runs while it listens. {@link #restore} puts the
 * stream back before the connection is closed, since a pool may hand it out again.
 * <p>
 * The fields are pgjdbc's, not its API: where a driver lacks them (another version),
 * nothing is changed and the notices take the extra millisecond, logged at {@code DEBUG}.
 * A test holds the driver version the build manages to it.
 */
final class TrailingNoticeWait {

	private static final System.Logger logger = System.getLogger(TrailingNoticeWait.class.getName());

	private static final Fields FIELDS = Fields.find();

	private TrailingNoticeWait() {
	}

	/**
	 * Removes the wait on {@code connection}, if its driver allows.
	 * @param connection a pgjdbc connection that listens
	 * @return whether the wait is removed
	 */
	static boolean remove(Connection connection) {
		return setNextCheck(connection, Long.MAX_VALUE);
	}

	/**
	 * Puts back the wait {@link #remove} took off, so that the connection behaves as
	 * pgjdbc made it wherever it goes next.
	 * @param connection a connection given to {@link #remove}
	 */
	static void restore(Connection connection) {
		setNextCheck(connection, 0);
	}

	private static boolean setNextCheck(Connection connection, long millis) {
		if (FIELDS == null) {
			return false;
		}
		try {
			Object executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
			if (!(executor instanceof QueryExecutorBase)) {
				return false;
			}
			PGStream stream = (PGStream) FIELDS.stream.get(executor);
			FIELDS.nextCheckMillis.setLong(stream, millis);
			return true;
		}
		catch (SQLException | ReflectiveOperationException | RuntimeException | LinkageError ex) {
			logger.log(Level.DEBUG, "Could not set pgjdbc's next check time on the LISTEN connection", ex);
			return false;
		}
	}

	/** pgjdbc's executor's stream and the stream's next check time. */
	private record Fields(Field stream, Field nextCheckMillis) {

		static Fields find() {
			try {
				Field stream = QueryExecutorBase.class.getDeclaredField("pgStream");
				Field nextCheckMillis = PGStream.class.getDeclaredField("nextStreamAvailableCheckTime");
				if (stream.getType() != PGStream.class || nextCheckMillis.getType() != long.class) {
					throw new NoSuchFieldException("pgjdbc's stream fields have other types");
				}
				stream.setAccessible(true);
				nextCheckMillis.setAccessible(true);
				return new Fields(stream, nextCheckMillis);
			}
			catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
				logger.log(Level.DEBUG, "Notices keep pgjdbc's 1 ms wait after each notice", ex);
				return null;
			}
		}

	}

}
