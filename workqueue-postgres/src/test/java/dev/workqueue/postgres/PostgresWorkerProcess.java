package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;

/**
 * A worker JVM for {@link PostgresThreeProcessTests}: consumer threads take items of one
 * shared queue (built with the defaults, on a pool of its own, its {@code LISTEN}
 * connection outside the pool) and record, in the test's results table, who held and who
 * finished each one. While a consumer holds an item it keeps a marker on the item's row
 * that lives half a lease; finding another's live marker means two live holders, and is
 * recorded as a violation. A killed holder's marker is gone before its item can come
 * back: the item waits at least a lease after its claim.
 * <p>
 * Arguments: JDBC URL, queue table, queue name, lease in milliseconds, consumers, and
 * optionally {@code hang}: then the first item this JVM takes is held (its lease renewed)
 * until the JVM is killed, as a stuck job in a JVM about to die, so that the test knows
 * one item it holds when it kills it. Prints {@code ready <pid>} once its consumers run.
 */
public final class PostgresWorkerProcess {

	private PostgresWorkerProcess() {
	}

	public static void main(String[] args) throws Exception {
		String url = args[0];
		String table = args[1];
		String name = args[2];
		Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
		int consumers = Integer.parseInt(args[4]);
		boolean hang = args.length > 5 && "hang".equals(args[5]);
		int pid = (int) ProcessHandle.current().pid();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(consumers + 2);
		HikariDataSource pool = new HikariDataSource(config);
		WorkQueue<String> queue = PostgresWorkQueues.builder(pool, ItemCodec.strings())
			.table(table)
			.name(name)
			.lease(lease)
			.listenConnection(() -> {
				try {
					return DriverManager.getConnection(url);
				}
				catch (SQLException ex) {
					throw new IllegalStateException(ex);
				}
			})
			.buildQueue();
		AtomicBoolean hung = new AtomicBoolean(!hang);
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < consumers; i++) {
			Thread thread = new Thread(() -> {
				try (Results results = new Results(url, table, pid, lease)) {
					for (String item = queue.get(); item != null; item = queue.get()) {
						results.held(item);
						if (hung.compareAndSet(false, true)) {
							// A stuck job: holds the item (its lease renewed) until the
							// JVM is killed.
							new CountDownLatch(1).await();
						}
						results.processed(item);
						queue.done(item);
					}
				}
				catch (Exception ex) {
					ex.printStackTrace();
				}
			}, "consumer-" + i);
			threads.add(thread);
			thread.start();
		}
		System.out.println("ready " + pid);
		System.out.flush();
		for (Thread thread : threads) {
			thread.join();
		}
	}

	/** One consumer's bookkeeping, on a connection of its own (auto-commit). */
	private static final class Results implements AutoCloseable {

		private final Connection connection;

		private final PreparedStatement held;

		private final PreparedStatement violation;

		private final PreparedStatement processed;

		private final int pid;

		private final long markerMillis;

		Results(String url, String table, int pid, Duration lease) throws SQLException {
			this.connection = DriverManager.getConnection(url);
			this.pid = pid;
			this.markerMillis = lease.toMillis() / 2;
			String results = PostgresThreeProcessTests.results(table);
			// The marker is taken only when none is live: the upsert locks the row, so
			// two consumers marking one item are serialised.
			this.held = this.connection.prepareStatement("INSERT INTO " + results
					+ " AS r (item, holder, marker, marker_until) VALUES (?, ?, ?, statement_timestamp() + ? * interval '1 millisecond')"
					+ " ON CONFLICT (item) DO UPDATE SET holder = EXCLUDED.holder,"
					+ " marker = CASE WHEN r.marker_until IS NULL OR r.marker_until < statement_timestamp()"
					+ " THEN EXCLUDED.marker ELSE r.marker END,"
					+ " marker_until = CASE WHEN r.marker_until IS NULL OR r.marker_until < statement_timestamp()"
					+ " THEN EXCLUDED.marker_until ELSE r.marker_until END RETURNING r.marker");
			this.violation = this.connection.prepareStatement(
					"INSERT INTO " + PostgresThreeProcessTests.violations(table) + " (detail) VALUES (?)");
			this.processed = this.connection
				.prepareStatement("UPDATE " + results + " SET processed = processed + 1, done_by = ?,"
						+ " marker_until = CASE WHEN marker = ? THEN NULL ELSE marker_until END,"
						+ " marker = CASE WHEN marker = ? THEN NULL ELSE marker END WHERE item = ?");
		}

		void held(String item) throws SQLException {
			this.held.setString(1, item);
			this.held.setInt(2, this.pid);
			this.held.setInt(3, this.pid);
			this.held.setLong(4, this.markerMillis);
			int marker;
			try (ResultSet row = this.held.executeQuery()) {
				row.next();
				marker = row.getInt(1);
			}
			if (marker != this.pid) {
				this.violation.setString(1, item + " taken by " + this.pid + " while held by " + marker);
				this.violation.executeUpdate();
			}
		}

		void processed(String item) throws SQLException {
			this.processed.setInt(1, this.pid);
			this.processed.setInt(2, this.pid);
			this.processed.setInt(3, this.pid);
			this.processed.setString(4, item);
			this.processed.executeUpdate();
		}

		@Override
		public void close() throws SQLException {
			this.connection.close();
		}

	}

}
