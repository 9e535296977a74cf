package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.logging.Level;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import dev.workqueue.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link TableKeeper} on the real database, whose server runs with
 * {@code autovacuum = off}: the keeper keeps a table that many items passed through near
 * its size with few (and without it the table grows), vacuums once a threshold of
 * finished rows is reached, from one instance at a time, carries on where it may not
 * vacuum, sweeps expired limiter rows whatever the policy (and vacuums the limiters'
 * table at each sweep where it vacuums), and reads autovacuum's settings.
 */
@RequiresPostgres
class TableKeeperTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	/** Vacuum at every 500 finished rows, as often as that; sweep often. */
	private static final TableKeeper.Settings EAGER = new TableKeeper.Settings(VacuumPolicy.AUTO, 500, Duration.ZERO,
			Duration.ofMillis(50), 10);

	/** As {@link #EAGER}, but a vacuum that could not run waits 20 ms to try again. */
	private static final TableKeeper.Settings PATIENT = new TableKeeper.Settings(VacuumPolicy.AUTO, 500,
			Duration.ofMillis(20), Duration.ofMillis(50), 10);

	@Test
	void withTheKeeperATableThatManyItemsPassedThroughStaysSmallAndWithoutItItGrows() throws SQLException {
		// A database of its own: an open transaction of another test in the shared one
		// would keep VACUUM from removing anything.
		try (PrivateDatabase database = new PrivateDatabase()) {
			DataSource pool = database.pool();
			String kept = "wq_kept";
			String bloated = "wq_bloated";
			execute(pool, PostgresWorkQueues.schema(kept) + ";" + PostgresWorkQueues.schema(bloated));
			addLiveItems(pool, kept, 200);
			addLiveItems(pool, bloated, 200);

			TableKeeper keeper = TableKeeper.acquire(pool, kept, EAGER);
			try {
				long first = 0;
				for (int round = 1; round <= 40; round++) {
					passThrough(pool, kept, round, 500);
					keeper.finished(500);
					int rounds = round;
					await().atMost(WAIT).until(() -> keeper.vacuums() == rounds);
					if (round == 1) {
						first = totalSize(pool, kept);
					}
					passThrough(pool, bloated, round, 500);
				}
				long keptSize = totalSize(pool, kept);
				long bloatedSize = totalSize(pool, bloated);
				// 20,000 items passed through each; 200 live in each.
				assertThat(keptSize).as("kept, against %d after the first round", first).isLessThanOrEqualTo(3 * first);
				assertThat(bloatedSize).as("without a keeper, against %d kept", keptSize).isGreaterThan(5 * keptSize);
			}
			finally {
				keeper.release();
			}
		}
	}

	@Test
	void neitherTheKeeperNorAutovacuumGivesTheEmptyPagesAtATablesEndBack() throws SQLException {
		// A database of its own, as above: else a vacuum may remove nothing, and then
		// truncates nothing either.
		try (PrivateDatabase database = new PrivateDatabase()) {
			DataSource pool = database.pool();
			String made = "wq_made";
			String earlier = "wq_earlier";
			execute(pool, PostgresWorkQueues.schema(made) + ";" + PostgresWorkQueues.schema(earlier));
			// A table made before the schema set it: the keeper's own vacuum must not
			// truncate it either. Neither is left to an autovacuum, wherever one runs.
			execute(pool, "ALTER TABLE " + earlier + " RESET (vacuum_truncate)");
			execute(pool, "ALTER TABLE " + made + " SET (autovacuum_enabled = false)");
			execute(pool, "ALTER TABLE " + earlier + " SET (autovacuum_enabled = false)");
			passThrough(pool, made, 1, 5_000);
			passThrough(pool, earlier, 1, 5_000);
			long madeSize = relationSize(pool, made);
			long earlierSize = relationSize(pool, earlier);

			// As autovacuum runs it: the table's own setting decides.
			execute(pool, "VACUUM " + made);
			TableKeeper keeper = TableKeeper.acquire(pool, earlier, EAGER);
			try {
				keeper.finished(500);
				await().atMost(WAIT).until(() -> keeper.vacuums() == 1);
			}
			finally {
				keeper.release();
			}

			assertThat(relationSize(pool, made)).isEqualTo(madeSize).isGreaterThan(0);
			assertThat(relationSize(pool, earlier)).isEqualTo(earlierSize).isGreaterThan(0);
			// They could have: asked to, a vacuum gives those pages back (the way to
			// shrink a table by hand).
			execute(pool, "VACUUM (TRUNCATE true) " + made + ", " + earlier);
			assertThat(relationSize(pool, made)).isLessThan(madeSize);
			assertThat(relationSize(pool, earlier)).isLessThan(earlierSize);
		}
	}

	@Test
	void aVacuumWaitsForItsThresholdOfFinishedRowsAndItsInterval() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture()) {
			TableKeeper keeper = TableKeeper.acquire(fixture.dataSource(), fixture.table(),
					new TableKeeper.Settings(VacuumPolicy.AUTO, 100, Duration.ofHours(1), Duration.ofMillis(50), 10));
			try {
				keeper.finished(99);
				long sweeps = keeper.sweeps();
				await().atMost(WAIT).until(() -> keeper.sweeps() >= sweeps + 2);
				assertThat(keeper.vacuums()).isZero();
				assertThat(vacuumCount(fixture.dataSource(), fixture.table())).isZero();

				keeper.finished(1);
				await().atMost(WAIT).until(() -> keeper.vacuums() == 1);
				assertThat(vacuumCount(fixture.dataSource(), fixture.table())).isEqualTo(1);

				keeper.finished(1_000);
				long later = keeper.sweeps();
				await().atMost(WAIT).until(() -> keeper.sweeps() >= later + 2);
				assertThat(keeper.vacuums()).as("not within the interval").isEqualTo(1);
			}
			finally {
				keeper.release();
			}
		}
	}

	@Test
	void everyNthVacuumAlsoVacuumsTheLimitTableAndAnalyzesTheTable() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture()) {
			TableKeeper keeper = TableKeeper.acquire(fixture.dataSource(), fixture.table(),
					new TableKeeper.Settings(VacuumPolicy.AUTO, 10, Duration.ZERO, Duration.ofMinutes(1), 2));
			try {
				keeper.finished(10);
				await().atMost(WAIT).until(() -> keeper.vacuums() == 1);
				assertThat(vacuumCount(fixture.dataSource(), fixture.table() + "_limit")).as("by the first sweep only")
					.isEqualTo(1);
				assertThat(analyzeCount(fixture.dataSource(), fixture.table())).isZero();
				keeper.finished(10);
				await().atMost(WAIT).until(() -> keeper.vacuums() == 2);
				assertThat(vacuumCount(fixture.dataSource(), fixture.table() + "_limit")).isEqualTo(2);
				assertThat(analyzeCount(fixture.dataSource(), fixture.table())).isEqualTo(1);
			}
			finally {
				keeper.release();
			}
		}
	}

	@Test
	void eachSweepVacuumsTheLimitTableWhereTheInstancesVacuumEvenWhenNoItemMoves() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture()) {
			TableKeeper keeper = TableKeeper.acquire(fixture.dataSource(), fixture.table(),
					new TableKeeper.Settings(VacuumPolicy.AUTO, 1_000_000, Duration.ZERO, Duration.ofMillis(50), 10));
			try {
				// The reporter's gauges row changes at every tick of an idle queue.
				await().atMost(WAIT).until(() -> vacuumCount(fixture.dataSource(), fixture.table() + "_limit") >= 2);
				assertThat(keeper.vacuums()).isZero();
				assertThat(vacuumCount(fixture.dataSource(), fixture.table())).isZero();
			}
			finally {
				keeper.release();
			}
		}
	}

	@Test
	void anotherInstanceHoldingTheTablesLockKeepsThisOneFromVacuumingMeanwhile() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture(); Connection other = PostgresDatabase.connect()) {
			lock(other, "pg_advisory_lock", TableKeeper.lockKey(fixture.table()));
			TableKeeper keeper = TableKeeper.acquire(fixture.dataSource(), fixture.table(), PATIENT);
			try {
				keeper.finished(500);
				long attempts = keeper.attempts();
				await().atMost(WAIT).until(() -> keeper.attempts() >= attempts + 3);
				assertThat(keeper.vacuums()).isZero();
				assertThat(keeper.sweeps()).as("nor sweeping").isZero();

				lock(other, "pg_advisory_unlock", TableKeeper.lockKey(fixture.table()));
				await().atMost(WAIT).until(() -> keeper.vacuums() == 1 && keeper.sweeps() >= 1);
			}
			finally {
				keeper.release();
			}
		}
	}

	@Test
	void underPolicyNeverTheKeeperOnlySweepsExpiredLimiterRowsSkippingLockedOnes() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture(); Connection holder = PostgresDatabase.connect()) {
			String limit = fixture.table() + "_limit";
			execute(fixture.dataSource(),
					"INSERT INTO " + limit + " (queue, kind, item, count, expires_at) VALUES"
							+ " ('q', 'failures:attempts', 'old-1', 1, statement_timestamp() - interval '1 second'),"
							+ " ('q', 'failures:attempts', 'old-2', 1, statement_timestamp() - interval '1 day'),"
							+ " ('q', 'failures:attempts', 'held', 1, statement_timestamp() - interval '1 second'),"
							+ " ('q', 'failures:attempts', 'new', 1, statement_timestamp() + interval '1 day'),"
							+ " ('q', 'bucket', '', 0, statement_timestamp() + interval '1 minute')");
			// A caller's open transaction holds one expired row.
			holder.setAutoCommit(false);
			execute(holder, "SELECT * FROM " + limit + " WHERE item = 'held' FOR UPDATE");

			TableKeeper keeper = TableKeeper.acquire(fixture.dataSource(), fixture.table(),
					new TableKeeper.Settings(VacuumPolicy.NEVER, 1, Duration.ZERO, Duration.ofMillis(50), 1));
			try {
				keeper.finished(10_000);
				await().atMost(WAIT).until(() -> keeper.sweeps() >= 2);
				assertThat(items(fixture.dataSource(), limit)).isEqualTo(",held,new,");
				assertThat(keeper.vacuums()).isZero();
				assertThat(vacuumCount(fixture.dataSource(), fixture.table())).isZero();
				assertThat(vacuumCount(fixture.dataSource(), limit)).isZero();

				holder.commit();
				await().atMost(WAIT).until(() -> items(fixture.dataSource(), limit).equals(",new,"));
			}
			finally {
				keeper.release();
			}
		}
	}

	@Test
	void theProbeReadsTheServersSettingsAndTheTables() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture(); Connection connection = PostgresDatabase.connect()) {
			TableKeeper.Autovacuum probed = TableKeeper.Autovacuum.probe(connection, fixture.table());
			assertThat(probed.server()).as("this server runs without autovacuum").isFalse();
			assertThat(probed.table()).isTrue();
			assertThat(probed.runs()).isFalse();

			execute(connection, "ALTER TABLE " + fixture.table() + " SET (autovacuum_enabled = off)");
			assertThat(TableKeeper.Autovacuum.probe(connection, fixture.table()).table()).isFalse();
			execute(connection, "ALTER TABLE " + fixture.table() + " SET (autovacuum_enabled = true)");
			assertThat(TableKeeper.Autovacuum.probe(connection, fixture.table()).table()).isTrue();
			assertThat(TableKeeper.Autovacuum.probe(connection, "wq_no_such_table").table()).isTrue();
		}
		assertThat(new TableKeeper.Autovacuum(true, true, true).runs()).isTrue();
		assertThat(new TableKeeper.Autovacuum(true, false, true).runs()).isFalse();
		assertThat(new TableKeeper.Autovacuum(true, true, false).runs()).isFalse();
	}

	@Test
	void wherePostgresAutovacuumRunsOnlyPolicyAlwaysVacuumsAndNeverNowhere() {
		// This server runs no autovacuum, so the other side is decided here.
		assertThat(VacuumPolicy.AUTO.vacuumsItself(false)).isTrue();
		assertThat(VacuumPolicy.AUTO.vacuumsItself(true)).isFalse();
		assertThat(VacuumPolicy.ALWAYS.vacuumsItself(false)).isTrue();
		assertThat(VacuumPolicy.ALWAYS.vacuumsItself(true)).isTrue();
		assertThat(VacuumPolicy.NEVER.vacuumsItself(false)).isFalse();
		assertThat(VacuumPolicy.NEVER.vacuumsItself(true)).isFalse();
	}

	@Test
	void aTableWithAutovacuumEnabledIsStillVacuumedWhereTheServerRunsNone() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture()) {
			execute(fixture.dataSource(), "ALTER TABLE " + fixture.table() + " SET (autovacuum_enabled = true)");
			TableKeeper keeper = TableKeeper.acquire(fixture.dataSource(), fixture.table(), EAGER);
			try {
				keeper.finished(500);
				await().atMost(WAIT).until(() -> keeper.vacuums() == 1);
			}
			finally {
				keeper.release();
			}
		}
	}

	@Test
	void aUserWhoMayNotVacuumTheTableIsToldOnceAndTheKeeperCarriesOn() throws SQLException {
		String role = "wq_keeper_" + ProcessHandle.current().pid();
		try (PostgresFixture fixture = new PostgresFixture(); LogRecords log = new LogRecords(TableKeeper.class)) {
			String limit = fixture.table() + "_limit";
			PostgresDatabase.execute("CREATE ROLE " + role + " LOGIN; GRANT SELECT, INSERT, UPDATE, DELETE ON "
					+ fixture.table() + ", " + limit + " TO " + role);
			try (HikariDataSource pool = poolOf(role)) {
				execute(fixture.dataSource(), "INSERT INTO " + limit + " (queue, kind, item, expires_at) VALUES"
						+ " ('q', 'bucket', '', statement_timestamp() - interval '1 second')");
				TableKeeper keeper = TableKeeper.acquire(pool, fixture.table(),
						new TableKeeper.Settings(VacuumPolicy.AUTO, 10, Duration.ZERO, Duration.ofMillis(50), 1));
				try {
					keeper.finished(10);
					long attempts = keeper.attempts();
					await().atMost(WAIT).until(() -> keeper.attempts() >= attempts + 5);
					assertThat(keeper.vacuums()).isZero();
					assertThat(log.count(Level.WARNING)).isEqualTo(1);
					assertThat(log.messages(Level.WARNING).get(0)).contains(fixture.table()).contains("skipping");
					// It carries on: the sweep works with the privileges it has.
					assertThat(items(fixture.dataSource(), limit)).isEmpty();
				}
				finally {
					keeper.release();
				}
			}
			finally {
				PostgresDatabase.execute("DROP OWNED BY " + role + "; DROP ROLE " + role);
			}
		}
	}

	@Test
	void anOutageIsLoggedOnceAndItsEndOnce() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture(); LogRecords log = new LogRecords(TableKeeper.class)) {
			ProbedDataSource dataSource = new ProbedDataSource(fixture.dataSource());
			dataSource.failing(true);
			TableKeeper keeper = TableKeeper.acquire(dataSource, fixture.table(), PATIENT);
			try {
				keeper.finished(500);
				await().atMost(WAIT).until(() -> dataSource.taken() >= 5);
				assertThat(log.count(Level.WARNING)).isEqualTo(1);
				dataSource.failing(false);
				await().atMost(WAIT).until(() -> keeper.vacuums() == 1);
				await().atMost(WAIT).until(() -> log.count(Level.INFO) == 1);
				assertThat(log.count(Level.WARNING)).isEqualTo(1);
			}
			finally {
				keeper.release();
			}
		}
	}

	@Test
	void acquiresOfOneTableAndPolicyShareOneKeeperAndTheLastReleaseEndsItsThread() {
		try (PostgresFixture fixture = new PostgresFixture()) {
			TableKeeper first = TableKeeper.acquire(fixture.dataSource(), fixture.table(),
					TableKeeper.Settings.DEFAULT);
			TableKeeper second = TableKeeper.acquire(fixture.dataSource(), fixture.table().toUpperCase(),
					TableKeeper.Settings.DEFAULT);
			assertThat(second).isSameAs(first);
			String thread = "workqueue-" + fixture.table() + "-keeper";
			assertThat(threadsNamed(thread)).isEqualTo(1);
			TableKeeper never = TableKeeper.acquire(fixture.dataSource(), fixture.table(),
					TableKeeper.Settings.of(VacuumPolicy.NEVER));
			assertThat(never).as("another policy, another keeper").isNotSameAs(first);
			never.release();
			await().atMost(WAIT).until(() -> threadsNamed(thread) == 1);
			first.release();
			assertThat(threadsNamed(thread)).isEqualTo(1);
			second.release();
			await().atMost(WAIT).until(() -> threadsNamed(thread) == 0);
			assertThatIllegalStateException().isThrownBy(first::release);
			// finished never waits, even on a released keeper.
			first.finished(1_000_000);
		}
	}

	/** Items that stay queued while others pass through. */
	/**
	 * A {@code REPEATABLE READ} transaction that took its snapshot on another connection
	 * (of a database of the test's own, so that no other session is older) holds back the
	 * cleanup horizon while items pass through: the keeper names that session in a
	 * warning and to health, backs its vacuums off, and returns to normal once the
	 * transaction ends.
	 */
	@Test
	void aSnapshotHeldOpenElsewhereIsNamedAndVacuumsBackOffUntilItEnds() throws Exception {
		try (PrivateDatabase database = new PrivateDatabase(); LogRecords logs = new LogRecords(TableKeeper.class)) {
			DataSource pool = database.pool();
			String table = "wq_held";
			execute(pool, PostgresWorkQueues.schema(table));
			String application = "wq-held-" + ProcessHandle.current().pid();
			TableKeeper keeper = TableKeeper.acquire(pool, table, new TableKeeper.Settings(VacuumPolicy.ALWAYS, 100,
					Duration.ofMillis(20), Duration.ofSeconds(2), 10, Duration.ofMillis(200)));
			Clock clock = Clock.system();
			int[] round = { 0 };
			try (Connection holder = pool.getConnection()) {
				execute(holder, "SET application_name = '" + application + "'");
				holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
				holder.setAutoCommit(false);
				execute(holder, "SELECT count(*) FROM " + table);
				long pid = single(pool,
						"SELECT pid FROM pg_stat_activity WHERE application_name = '" + application + "'");
				await().atMost(WAIT).until(() -> {
					passThrough(pool, table, ++round[0], 100);
					keeper.finished(100);
					return keeper.warning() != null;
				});
				assertThat(keeper.warning()).contains("session pid " + pid + " (application '" + application + "'");
				// The held snapshot holds back every table's cleanup: only this table's
				// keeper counts here, not a keeper another test left in this JVM.
				assertThat(logs.messages(Level.WARNING)).filteredOn((message) -> message.contains(" " + table + " "))
					.singleElement()
					.asString()
					.contains("Cleanup of table " + table + " is held back: session pid " + pid)
					.contains(application);
				long before = keeper.vacuums();
				long endNanos = clock.nanoTime() + Duration.ofSeconds(3).toNanos();
				while (clock.nanoTime() < endNanos) {
					passThrough(pool, table, ++round[0], 100);
					keeper.finished(100);
				}
				// Every 20 ms but for the hold: 100, 200, 400 ms ... up to the sweep's 2
				// s.
				assertThat(keeper.vacuums() - before).as("vacuums in 3 s of traffic").isBetween(1L, 6L);
				holder.rollback();
			}
			await().atMost(WAIT).until(() -> {
				passThrough(pool, table, ++round[0], 100);
				keeper.finished(100);
				return keeper.warning() == null;
			});
			assertThat(logs.messages(Level.INFO)).anySatisfy((message) -> assertThat(message)
				.startsWith("Cleanup of table " + table + " is no longer held back"));
			long before = keeper.vacuums();
			await().atMost(WAIT).until(() -> {
				passThrough(pool, table, ++round[0], 100);
				keeper.finished(100);
				return keeper.vacuums() >= before + 10;
			});
			keeper.release();
		}
	}

	private static void addLiveItems(DataSource dataSource, String table, int count) throws SQLException {
		execute(dataSource,
				"INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq) SELECT 'q', "
						+ "'live-' || g, 0, 0, statement_timestamp(), nextval('" + table
						+ "_token') FROM generate_series(1, " + count + ") g");
	}

	/** Items pass through as the engine moves them: added, claimed, done. */
	private static void passThrough(DataSource dataSource, String table, int round, int count) throws SQLException {
		execute(dataSource,
				"INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq) SELECT 'q', 'r" + round
						+ "-' || g, 0, 0, statement_timestamp(), nextval('" + table
						+ "_token') FROM generate_series(1, " + count + ") g");
		execute(dataSource, "UPDATE " + table + " SET state = 1, token = nextval('" + table + "_token'), holder = 'h', "
				+ "lease_until = statement_timestamp() + interval '30 seconds' WHERE queue = 'q' AND item LIKE 'r"
				+ round + "-%'");
		execute(dataSource,
				"DELETE FROM " + table + " WHERE queue = 'q' AND state = 1 AND item LIKE 'r" + round + "-%'");
	}

	private static long totalSize(DataSource dataSource, String table) throws SQLException {
		return single(dataSource, "SELECT pg_total_relation_size('" + table + "')");
	}

	private static long relationSize(DataSource dataSource, String table) throws SQLException {
		return single(dataSource, "SELECT pg_relation_size('" + table + "')");
	}

	private static long vacuumCount(DataSource dataSource, String table) throws SQLException {
		return single(dataSource,
				"SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = '" + table + "'::regclass");
	}

	private static long analyzeCount(DataSource dataSource, String table) throws SQLException {
		return single(dataSource,
				"SELECT analyze_count FROM pg_stat_user_tables WHERE relid = '" + table + "'::regclass");
	}

	private static String items(DataSource dataSource, String table) throws SQLException {
		try (Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement
					.executeQuery("SELECT string_agg(item || ',', '' ORDER BY item) FROM " + table)) {
			result.next();
			String items = result.getString(1);
			return (items != null) ? items : "";
		}
	}

	private static long single(DataSource dataSource, String sql) throws SQLException {
		try (Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getLong(1);
		}
	}

	private static void execute(DataSource dataSource, String sql) throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			execute(connection, sql);
		}
	}

	private static void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	private static void lock(Connection connection, String function, long key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT " + function + "(?)")) {
			statement.setLong(1, key);
			statement.execute();
		}
	}

	private static HikariDataSource poolOf(String user) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL.replaceAll("user=[^&]*", "user=" + user));
		config.setMaximumPoolSize(1);
		return new HikariDataSource(config);
	}

	private static long threadsNamed(String name) {
		return Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread.getName().equals(name)).count();
	}

}
