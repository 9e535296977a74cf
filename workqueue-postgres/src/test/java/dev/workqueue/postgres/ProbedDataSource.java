package dev.workqueue.postgres;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

import javax.sql.DataSource;

/**
 * A data source for tests that wraps another: counts the connections taken, can hold them
 * back behind a gate, can fail them, and records a value of the test's at each.
 */
final class ProbedDataSource implements DataSource {

	private final Source source;

	private final AtomicInteger taken = new AtomicInteger();

	private volatile CountDownLatch gate;

	private volatile boolean failing;

	private volatile LongSupplier probe = () -> 0;

	private volatile long lastProbe;

	ProbedDataSource(DataSource delegate) {
		this(delegate::getConnection);
	}

	ProbedDataSource(Source source) {
		this.source = source;
	}

	/**
	 * A data source whose every connection is {@code connection}, which closing leaves
	 * open: as a transaction-aware data source hands out the connection of the calling
	 * thread's transaction.
	 */
	static ProbedDataSource of(Connection connection) {
		return new ProbedDataSource(() -> (Connection) Proxy.newProxyInstance(ProbedDataSource.class.getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					if (method.getName().equals("close")) {
						return null;
					}
					try {
						return method.invoke(connection, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				}));
	}

	/** How many connections were asked for. */
	int taken() {
		return this.taken.get();
	}

	/** Holds every later connection back until {@link #openGate()}. */
	void closeGate() {
		this.gate = new CountDownLatch(1);
	}

	/** Lets connections through again. */
	void openGate() {
		CountDownLatch closed = this.gate;
		this.gate = null;
		if (closed != null) {
			closed.countDown();
		}
	}

	/** Makes every later connection fail (or succeed again). */
	void failing(boolean failing) {
		this.failing = failing;
	}

	/** Reads {@code probe} at every connection asked for. */
	void probe(LongSupplier probe) {
		this.probe = probe;
	}

	/** What {@link #probe} read at the last connection asked for. */
	long lastProbe() {
		return this.lastProbe;
	}

	@Override
	public Connection getConnection() throws SQLException {
		this.lastProbe = this.probe.getAsLong();
		this.taken.incrementAndGet();
		CountDownLatch closed = this.gate;
		if (closed != null) {
			try {
				if (!closed.await(30, TimeUnit.SECONDS)) {
					throw new SQLException("The test's gate stayed closed");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SQLException(ex);
			}
		}
		if (this.failing) {
			throw new SQLException("The test's database is unreachable", "08001");
		}
		return this.source.get();
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		throw new SQLFeatureNotSupportedException();
	}

	@Override
	public PrintWriter getLogWriter() {
		return null;
	}

	@Override
	public void setLogWriter(PrintWriter out) {
	}

	@Override
	public void setLoginTimeout(int seconds) {
	}

	@Override
	public int getLoginTimeout() {
		return 0;
	}

	@Override
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
		throw new SQLFeatureNotSupportedException();
	}

	@Override
	public <T> T unwrap(Class<T> iface) throws SQLException {
		throw new SQLException("Not a wrapper of " + iface);
	}

	@Override
	public boolean isWrapperFor(Class<?> iface) {
		return false;
	}

	/** Where the connections come from. */
	@FunctionalInterface
	interface Source {

		Connection get() throws SQLException;

	}

}
