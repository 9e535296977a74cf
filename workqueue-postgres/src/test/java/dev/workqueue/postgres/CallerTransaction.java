package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

/**
 * "The caller's transaction" as a plain JDBC application has it: one connection with
 * auto-commit off, and a {@link DataSource} that hands out that connection (whose
 * {@code close} does nothing, as a transaction-aware data source's does inside a
 * transaction).
 */
final class CallerTransaction implements AutoCloseable {

	private final Connection connection;

	CallerTransaction() throws SQLException {
		this.connection = PostgresDatabase.connect();
		this.connection.setAutoCommit(false);
	}

	/** A data source whose every connection is this transaction's. */
	DataSource dataSource() {
		Connection shared = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					if (method.getName().equals("close")) {
						return null;
					}
					try {
						return method.invoke(this.connection, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { DataSource.class },
				(proxy, method, args) -> {
					if (method.getName().equals("getConnection")) {
						return shared;
					}
					throw new UnsupportedOperationException(method.getName());
				});
	}

	/** Runs {@code sql} in the transaction. */
	void execute(String sql) throws SQLException {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute(sql);
		}
	}

	void commit() throws SQLException {
		this.connection.commit();
	}

	void rollback() throws SQLException {
		this.connection.rollback();
	}

	@Override
	public void close() throws SQLException {
		this.connection.rollback();
		this.connection.close();
	}

}
