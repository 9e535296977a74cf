package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A {@code LISTEN} connection of a test's own, that collects the notices of one channel.
 */
final class Listening implements AutoCloseable {

	private final Connection connection;

	private final List<Notices.Notice> received = new ArrayList<>();

	Listening(String channel) throws SQLException {
		this.connection = PostgresDatabase.connect();
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("LISTEN \"" + channel + "\"");
		}
	}

	/** Reads what came within a short wait, and returns everything received so far. */
	synchronized List<Notices.Notice> received() throws SQLException {
		PGNotification[] notifications = this.connection.unwrap(PGConnection.class).getNotifications(50);
		if (notifications != null) {
			for (PGNotification notification : notifications) {
				this.received.add(Notices.parse(notification.getParameter()));
			}
		}
		return List.copyOf(this.received);
	}

	@Override
	public void close() throws SQLException {
		this.connection.close();
	}

}
