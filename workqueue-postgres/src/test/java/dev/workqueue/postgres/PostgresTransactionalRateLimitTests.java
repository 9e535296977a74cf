package dev.workqueue.postgres;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.ratelimit.RateLimiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code addRateLimited} inside the callers' transactions on a pool that they hold whole:
 * the item and its failure count go through each caller's connection, in its transaction;
 * the shared token bucket is taken on a connection outside the pool, so that no call
 * waits for a pool connection that only the callers' commits would free.
 */
@RequiresPostgres
class PostgresTransactionalRateLimitTests {

	private static final int POOL_SIZE = 4;

	private final PostgresFixture fixture = new PostgresFixture();

	private final HikariDataSource pool = pool();

	/** The connection of the calling thread's transaction, as Spring binds it. */
	private final ThreadLocal<Connection> transaction = new ThreadLocal<>();

	private final ExecutorService threads = Executors.newFixedThreadPool(POOL_SIZE);

	@AfterEach
	void close() {
		try {
			this.threads.shutdownNow();
			this.pool.close();
		}
		finally {
			this.fixture.close();
		}
	}

	private static HikariDataSource pool() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL);
		config.setMaximumPoolSize(POOL_SIZE);
		config.setConnectionTimeout(2_000);
		return new HikariDataSource(config);
	}

	@Test
	void aPoolHeldWholeByTransactionsTakesEveryRateLimitedAddAndEachCountFollowsItsTransaction() throws Exception {
		PostgresWorkQueues.Builder<String> builder = PostgresWorkQueues.builder(transactionAware(), ItemCodec.strings())
			.workerDataSource(this.pool)
			.callerTransaction(() -> this.transaction.get() != null)
			.table(this.fixture.table())
			.name("limited")
			.listen(false)
			.vacuum(VacuumPolicy.NEVER);
		RateLimiter<String> limiter = builder.rateLimiters().defaultControllerRateLimiter();
		RateLimitingQueue<String> queue = builder.buildRateLimitingQueue(limiter);
		try {
			CyclicBarrier everyConnectionHeld = new CyclicBarrier(POOL_SIZE);
			List<Future<Long>> calls = new ArrayList<>();
			for (int i = 0; i < POOL_SIZE; i++) {
				String item = "item-" + i;
				boolean commit = i % 2 == 0;
				calls.add(this.threads.submit(() -> {
					try (Connection connection = this.pool.getConnection()) {
						connection.setAutoCommit(false);
						this.transaction.set(connection);
						try {
							everyConnectionHeld.await(10, TimeUnit.SECONDS);
							long startNanos = System.nanoTime();
							queue.addRateLimited(item);
							long tookMillis = (System.nanoTime() - startNanos) / 1_000_000;
							if (commit) {
								connection.commit();
							}
							else {
								connection.rollback();
							}
							return tookMillis;
						}
						finally {
							this.transaction.remove();
						}
					}
				}));
			}
			for (Future<Long> call : calls) {
				assertThat(call.get(20, TimeUnit.SECONDS)).as("milliseconds one call took").isLessThan(1_500);
			}
			for (int i = 0; i < POOL_SIZE; i++) {
				assertThat(limiter.numRequeues("item-" + i)).as("failures of item-%d", i)
					.isEqualTo((i % 2 == 0) ? 1 : 0);
			}
			assertThat(TestSql.count(this.fixture.table())).as("the committed items").isEqualTo(POOL_SIZE / 2);
		}
		finally {
			queue.shutDown();
		}
	}

	/**
	 * A data source that hands out the calling thread's transaction connection (whose
	 * {@code close} leaves it open), or a connection of the pool outside one.
	 */
	private DataSource transactionAware() {
		return new DataSource() {

			@Override
			public Connection getConnection() throws SQLException {
				Connection bound = PostgresTransactionalRateLimitTests.this.transaction.get();
				return (bound != null) ? unclosable(bound)
						: PostgresTransactionalRateLimitTests.this.pool.getConnection();
			}

			@Override
			public Connection getConnection(String username, String password) {
				throw new UnsupportedOperationException();
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
			public Logger getParentLogger() {
				return Logger.getGlobal();
			}

			@Override
			public <T> T unwrap(Class<T> iface) throws SQLException {
				return PostgresTransactionalRateLimitTests.this.pool.unwrap(iface);
			}

			@Override
			public boolean isWrapperFor(Class<?> iface) throws SQLException {
				return PostgresTransactionalRateLimitTests.this.pool.isWrapperFor(iface);
			}

		};
	}

	private static Connection unclosable(Connection connection) {
		return (Connection) Proxy.newProxyInstance(PostgresTransactionalRateLimitTests.class.getClassLoader(),
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
				});
	}

}
