package dev.workqueue.spring.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.function.Supplier;

import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Opens connections with {@link DriverManager} where Spring Boot's
 * {@link JdbcConnectionDetails} say ({@code spring.datasource.*}, or what
 * {@code @ServiceConnection} and Docker Compose define): outside the application's pool,
 * so that its size, lifetime and leak rules do not touch a connection held for as long as
 * the application runs, as the one that {@code LISTEN}s for the postgres queues' notices.
 * Each call opens a new connection, in auto-commit mode, which the caller closes.
 *
 * @param details where to connect
 */
record DriverManagerConnections(JdbcConnectionDetails details) implements Supplier<Connection> {

	/**
	 * Opens a connection.
	 * @return a new connection
	 * @throws CannotGetJdbcConnectionException if the database cannot be reached
	 */
	@Override
	public Connection get() {
		try {
			return DriverManager.getConnection(this.details.getJdbcUrl(), this.details.getUsername(),
					this.details.getPassword());
		}
		catch (SQLException ex) {
			throw new CannotGetJdbcConnectionException(
					"Cannot open a connection outside the pool to " + this.details.getJdbcUrl(), ex);
		}
	}

}
