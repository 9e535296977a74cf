package dev.workqueue.postgres;

import java.io.PrintWriter;
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

	private final DataSource delegate;

	private final AtomicInteger taken = new AtomicInteger();

	private volatile CountDownLatch gate;

	private volatile boolean failing;

	private volatile LongSupplier probe = () -> 0;

	private volatile long lastProbe;

	ProbedDataSource(DataSource delegate) {
		this.delegate = delegate;
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
		return this.delegate.getConnection();
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		throw new SQLFeatureNotSupportedException();
	}

	@Override
	public PrintWriter getLogWriter() throws SQLException {
		return this.delegate.getLogWriter();
	}

	@Override
	public void setLogWriter(PrintWriter out) throws SQLException {
		this.delegate.setLogWriter(out);
	}

	@Override
	public void setLoginTimeout(int seconds) throws SQLException {
		this.delegate.setLoginTimeout(seconds);
	}

	@Override
	public int getLoginTimeout() throws SQLException {
		return this.delegate.getLoginTimeout();
	}

	@Override
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
		return this.delegate.getParentLogger();
	}

	@Override
	public <T> T unwrap(Class<T> iface) throws SQLException {
		return this.delegate.unwrap(iface);
	}

	@Override
	public boolean isWrapperFor(Class<?> iface) throws SQLException {
		return this.delegate.isWrapperFor(iface);
	}

}
