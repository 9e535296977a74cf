package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The plans PostgreSQL makes for a queue's statements, as the plan tests read them. */
final class StatementPlans {

	private StatementPlans() {
	}

	/**
	 * Binds one named parameter of a statement.
	 */
	@FunctionalInterface
	interface Binder {

		void bind(SqlStatement sql, PreparedStatement statement, String parameter) throws SQLException;

	}

	/**
	 * The plan of a statement ({@code EXPLAIN}), each of its parameters bound by
	 * {@code binder}.
	 * @param sql the statement
	 * @param binder binds each parameter the statement names
	 * @return the plan's lines
	 * @throws SQLException if the database cannot plan it
	 */
	static String explain(SqlStatement sql, Binder binder) throws SQLException {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection.prepareStatement("EXPLAIN " + sql.text())) {
			for (String parameter : SqlStatement.parameters(SqlStatement.body(SqlStatement.read(sql.name())))) {
				binder.bind(sql, statement, parameter);
			}
			List<String> lines = new ArrayList<>();
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					lines.add(rows.getString(1));
				}
			}
			return String.join("\n", lines);
		}
	}

}
