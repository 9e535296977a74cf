package dev.workqueue.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashSet;
import java.util.Set;

/**
 * Extends leases of one handle by their tokens: one statement on the lease rows
 * ({@link QueueSql#renew}), which no application locks, so it never waits for an item row
 * that another session holds. Its new ends count from after any wait of the statement.
 * The {@link LeaseKeeper} renews every lease of the handle with it every third of the
 * lease; the {@link ItemClaims} renews the leases of a claim whose answer came late
 * before it hands them out. Thread-safe (stateless but for its settings).
 */
final class LeaseRenewal {

	private final QueueDatabase database;

	private final QueueSql sql;

	private final long leaseMicros;

	LeaseRenewal(QueueDatabase database, QueueSql sql, long leaseNanos) {
		this.database = database;
		this.sql = sql;
		this.leaseMicros = Delays.micros(leaseNanos);
	}

	/**
	 * Renews the leases of {@code tokens}.
	 * @param tokens the leases' tokens
	 * @return the tokens renewed; the others' leases ended (handed back, done, or run out
	 * and queued again)
	 * @throws PostgresQueueException if the statement fails
	 */
	Set<Long> renew(long[] tokens) {
		return this.database.run("renew the leases of", (connection) -> {
			try (PreparedStatement statement = this.sql.renew.prepare(connection)) {
				this.database.bindNow(this.sql.renew, statement);
				this.sql.renew.setLong(statement, "lease", this.leaseMicros);
				this.sql.renew.setString(statement, "queue", this.database.name());
				this.sql.renew.setArray(statement, "tokens", QueueDatabase.bigints(connection, tokens));
				Set<Long> renewed = new HashSet<>();
				try (ResultSet rows = statement.executeQuery()) {
					while (rows.next()) {
						renewed.add(rows.getLong(1));
					}
				}
				return renewed;
			}
		});
	}

}
