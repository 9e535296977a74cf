package dev.workqueue.spring.autoconfigure;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

/**
 * Checks at start-up that the postgres queues' table exists, with the objects
 * {@code PostgresWorkQueues.schema(table)} makes beside it (the sequence of fencing
 * tokens, the leases' table, the limiters' table), so that a missing one fails the
 * start-up naming it rather than the first add. A database that cannot be reached now is
 * not a reason to fail: the queues recover by themselves when it comes back, and the
 * health contributor says {@code DOWN} meanwhile.
 */
final class PostgresQueueTable {

	private static final Log logger = LogFactory.getLog(PostgresQueueTable.class);

	/**
	 * One round trip; {@code to_regclass} resolves a name as a statement would (search
	 * path, optional schema), and answers {@code null} for a missing object rather than
	 * failing.
	 */
	private static final String EXISTS = "SELECT to_regclass(?) IS NOT NULL, to_regclass(?) IS NOT NULL, "
			+ "to_regclass(?) IS NOT NULL, to_regclass(?) IS NOT NULL";

	private PostgresQueueTable() {
	}

	/**
	 * Checks that {@code table} and its companions exist.
	 * @param dataSource where to look
	 * @param table the table, as configured
	 * @throws PostgresQueueTableMissingException if one of them is missing
	 */
	static void check(DataSource dataSource, String table) {
		List<String> names = List.of(table, table + "_token", table + "_lease", table + "_limit");
		List<String> missing = new ArrayList<>();
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(EXISTS)) {
			for (int i = 0; i < names.size(); i++) {
				statement.setString(i + 1, names.get(i));
			}
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				for (int i = 0; i < names.size(); i++) {
					if (!result.getBoolean(i + 1)) {
						missing.add(names.get(i));
					}
				}
			}
		}
		catch (SQLException ex) {
			logger.warn(LogMessage.format("Cannot check that the work queue table '%s' exists: %s", table,
					ex.getMessage()));
			return;
		}
		if (!missing.isEmpty()) {
			throw new PostgresQueueTableMissingException(table, missing);
		}
	}

}
