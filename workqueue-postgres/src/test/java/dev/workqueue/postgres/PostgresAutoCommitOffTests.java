package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.logging.Level;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A builder given a data source whose connections come with auto-commit off, and no
 * {@code callerTransaction} rule: by the default rule every add outside a transaction of
 * the caller's would join one that nobody commits, so the build says so.
 */
@RequiresPostgres
class PostgresAutoCommitOffTests {

	private final EngineFixture fixture = new EngineFixture();

	@AfterEach
	void close() throws Exception {
		this.fixture.close();
	}

	@Test
	void aBuildOnConnectionsWithAutoCommitOffAndNoCallerTransactionRuleWarns() {
		try (LogRecords log = new LogRecords(PostgresWorkQueues.class)) {
			this.fixture.track(this.fixture.builder("q", autoCommitOff(PostgresDatabase.pool())).buildQueue());
			assertThat(log.messages(Level.WARNING)).singleElement()
				.asString()
				.contains("Queue 'q'")
				.contains("auto-commit off")
				.contains("callerTransaction");
		}
	}

	@Test
	void aBuildGivenACallerTransactionRuleDoesNotWarn() {
		try (LogRecords log = new LogRecords(PostgresWorkQueues.class)) {
			this.fixture.track(this.fixture.builder("q", autoCommitOff(PostgresDatabase.pool()))
				.callerTransaction(() -> false)
				.buildQueue());
			assertThat(log.messages(Level.WARNING)).isEmpty();
		}
	}

	/**
	 * Hands out {@code pool}'s connections with auto-commit off, as a pool set so would.
	 */
	private static DataSource autoCommitOff(DataSource pool) {
		return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					try {
						Object result = method.invoke(pool, args);
						if (result instanceof Connection connection) {
							connection.setAutoCommit(false);
						}
						return result;
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
	}

}
