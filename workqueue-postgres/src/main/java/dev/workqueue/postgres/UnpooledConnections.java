package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import org.postgresql.PGConnection;

/**
 * Connections outside any pool, for what must not take a pool's connection: the
 * {@code LISTEN} connection held for as long as a queue listens (a pool's lifetime and
 * leak rules would close it, and it would cost the pool a connection for good), and the
 * token of a shared bucket taken while the caller's transaction holds a pool connection
 * (the pool may have none left).
 * <p>
 * {@link #unpooled} finds, through the standard {@link java.sql.Wrapper#unwrap unwrap}, a
 * data source that opens a new physical connection on each call behind the one given:
 * pgjdbc's {@code PGSimpleDataSource} (given as such, or as the data source of a pool),
 * or the one HikariCP makes from its {@code jdbcUrl}, user and password. Neither is a
 * dependency: they are looked up by name. {@link #discard} closes a broken connection so
 * that a pool never hands it out again. Stateless and thread-safe.
 */
final class UnpooledConnections {

	private static final System.Logger logger = System.getLogger(UnpooledConnections.class.getName());

	/** Data sources that open a new physical connection on each call. */
	private static final List<String> DIRECT = List.of("org.postgresql.ds.PGSimpleDataSource",
			"com.zaxxer.hikari.util.DriverDataSource");

	private UnpooledConnections() {
	}

	/**
	 * Returns the data source behind {@code dataSource} that opens connections outside
	 * any pool.
	 * @param dataSource the application's data source (a pool, perhaps wrapped)
	 * @return the unpooled data source, or {@code null} if none can be found
	 */
	static DataSource unpooled(DataSource dataSource) {
		for (String name : DIRECT) {
			Class<? extends DataSource> type = load(name);
			if (type != null) {
				try {
					if (dataSource.isWrapperFor(type)) {
						return dataSource.unwrap(type);
					}
				}
				catch (SQLException | RuntimeException ex) {
					// A wrapper that cannot tell: not this kind.
				}
			}
		}
		return null;
	}

	private static Class<? extends DataSource> load(String name) {
		try {
			return Class.forName(name, false, UnpooledConnections.class.getClassLoader()).asSubclass(DataSource.class);
		}
		catch (ClassNotFoundException | LinkageError | ClassCastException ex) {
			return null;
		}
	}

	/**
	 * Closes a connection that failed: first the physical connection under a pool's
	 * wrapper (a pool that gets a closed connection back discards it, where one that
	 * merely broke on a path the pool did not see could be handed out again), then the
	 * connection itself. Never throws.
	 * @param connection the broken connection, perhaps a pool's
	 */
	static void discard(Connection connection) {
		try {
			if (connection.unwrap(PGConnection.class) instanceof Connection physical && physical != connection) {
				physical.close();
			}
		}
		catch (SQLException | RuntimeException | LinkageError ex) {
			logger.log(Level.DEBUG, "Cannot reach the physical connection under a broken one", ex);
		}
		try {
			connection.close();
		}
		catch (SQLException | RuntimeException ex) {
			logger.log(Level.DEBUG, "Closing a broken connection failed", ex);
		}
	}

}
