package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link PostgresWorkQueues#schema(String)}: runs twice without error (also while a
 * transaction that added holds its lock), qualifies names, brings a table of an earlier
 * release up to date (and the leases it kept in the item rows are honoured), refuses what
 * is not an identifier.
 */
@RequiresPostgres
class SchemaTests {

	@Test
	void schemaRunsTwiceAndCreatesTheTableItsIndexesAndTheSequence() {
		try (PostgresFixture fixture = new PostgresFixture()) {
			PostgresDatabase.execute(PostgresWorkQueues.schema(fixture.table()));
			assertThat(PostgresWorkQueues.schema(fixture.table())).contains(fixture.table() + "_token")
				.contains(fixture.table() + "_ready")
				.contains(fixture.table() + "_lease")
				.contains(fixture.table() + "_limit");
		}
	}

	/**
	 * PostgreSQL cuts every name at 63 bytes, and the names derived from a long table's
	 * must not become one another's: an index whose cut name is a table's is taken as
	 * made and skipped (the given-up table's index, once named {@code _given_up_at}, from
	 * 54 characters on), and at 57 {@code _leases} became {@code _lease}, whose table the
	 * schema then failed to make.
	 */
	@Test
	void theLongestTableNameAcceptedGetsEveryTableAndIndexAShortOneGets() {
		PostgresDatabase.execute("CREATE SCHEMA IF NOT EXISTS wq_long_name_test");
		try {
			String shortName = "wq_long_name_test.t";
			String longest = "wq_long_name_test." + "t".repeat(TableName.MAX_LENGTH);
			for (String table : java.util.List.of(shortName, longest)) {
				PostgresDatabase.execute(PostgresWorkQueues.schema(table));
				PostgresDatabase.execute(PostgresWorkQueues.schema(table));
			}
			assertThat(objectsOf(shortName)).isEqualTo("sequence; table with 4 indexes; table with 2 indexes;"
					+ " table with 2 indexes; table with 2 indexes");
			assertThat(objectsOf(longest)).as("the longest name's").isEqualTo(objectsOf(shortName));
			assertThatIllegalArgumentException().isThrownBy(() -> PostgresWorkQueues.schema(longest + "t"))
				.withMessageContaining("at most 56 characters");
		}
		finally {
			PostgresDatabase.execute("DROP SCHEMA wq_long_name_test CASCADE");
		}
	}

	/** The relations of a table's schema, told apart by kind and indexes, not by name. */
	private static String objectsOf(String table) {
		String name = table.substring(table.indexOf('.') + 1);
		return TestSql.queryString(
				"SELECT string_agg(CASE c.relkind WHEN 'S' THEN 'sequence' ELSE 'table with '"
						+ " || (SELECT count(*) FROM pg_index i WHERE i.indrelid = c.oid) || ' indexes' END, '; '"
						+ " ORDER BY c.oid) FROM pg_class c WHERE c.relnamespace = 'wq_long_name_test'::regnamespace"
						+ " AND c.relkind IN ('r', 'S') AND (c.relname = ? OR starts_with(c.relname, ? || '_'))",
				name, name);
	}

	@Test
	void aSchemaQualifiedTableNamesItsIndexesWithoutTheSchema() {
		PostgresDatabase.execute("CREATE SCHEMA IF NOT EXISTS wq_schema_test");
		try {
			PostgresDatabase.execute(PostgresWorkQueues.schema("wq_schema_test.items"));
			assertThat(PostgresWorkQueues.schema("wq_schema_test.items"))
				.contains("CREATE INDEX IF NOT EXISTS items_ready ON wq_schema_test.items");
		}
		finally {
			PostgresDatabase.execute("DROP SCHEMA wq_schema_test CASCADE");
		}
	}

	@Test
	void theTablesGetTheirStorageSettings() {
		try (PostgresFixture fixture = new PostgresFixture()) {
			assertStorageSettings(fixture.table());
		}
		String schema = "wq_schema_" + ProcessHandle.current().pid();
		PostgresDatabase.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
		try {
			PostgresDatabase.execute(PostgresWorkQueues.schema(schema + ".items"));
			assertStorageSettings(schema + ".items");
		}
		finally {
			PostgresDatabase.execute("DROP SCHEMA " + schema + " CASCADE");
		}
	}

	/**
	 * The items' and the leases' tables: updated in place (room on each page), vacuumed
	 * after a fixed number of dead rows, without pauses; they, the limiters' table and
	 * their TOAST tables never truncated (which takes the table's exclusive lock).
	 */
	private static void assertStorageSettings(String table) {
		String autovacuum = ",autovacuum_analyze_scale_factor=0,autovacuum_analyze_threshold=5000"
				+ ",autovacuum_vacuum_cost_delay=0,autovacuum_vacuum_insert_scale_factor=0"
				+ ",autovacuum_vacuum_insert_threshold=2000,autovacuum_vacuum_scale_factor=0"
				+ ",autovacuum_vacuum_threshold=2000";
		assertThat(reloptions(table)).isEqualTo("fillfactor=80,vacuum_truncate=false" + autovacuum);
		assertThat(reloptions(table + "_lease")).isEqualTo("fillfactor=70,vacuum_truncate=false" + autovacuum);
		assertThat(reloptions(table + "_limit")).isEqualTo("vacuum_truncate=false");
		for (String each : new String[] { table, table + "_lease", table + "_limit" }) {
			assertThat(TestSql.queryString("SELECT array_to_string(t.reloptions, ',') FROM pg_class r"
					+ " JOIN pg_class t ON t.oid = r.reltoastrelid WHERE r.oid = to_regclass(?)", each))
				.as("the TOAST table of %s", each)
				.isEqualTo("vacuum_truncate=false");
		}
	}

	/** A table's storage settings, sorted, the autovacuum ones after the fill factor. */
	private static String reloptions(String table) {
		return TestSql.queryString("SELECT string_agg(o, ',' ORDER BY o LIKE 'autovacuum%', o COLLATE \"C\")"
				+ " FROM pg_class, unnest(reloptions) o WHERE oid = to_regclass(?)", table);
	}

	@Test
	void aSecondRunDoesNotWaitForATransactionThatAddedToTheTable() throws SQLException {
		try (PostgresFixture fixture = new PostgresFixture();
				Connection adding = PostgresDatabase.connect();
				Connection starting = PostgresDatabase.connect()) {
			adding.setAutoCommit(false);
			try (Statement add = adding.createStatement(); Statement schema = starting.createStatement()) {
				add.execute("INSERT INTO " + fixture.table()
						+ " (queue, item, state, priority, ready_at, seq) VALUES ('q', 'a', 0, 0, now(), 1)");
				// CREATE INDEX would wait for that transaction before finding its index
				// exists.
				schema.execute("SET lock_timeout = '2s'");
				schema.execute(PostgresWorkQueues.schema(fixture.table()));
			}
			finally {
				adding.rollback();
			}
		}
	}

	@Test
	void aTableOfAnEarlierReleaseGetsTheTraceColumnAndKeepsItsRows() {
		try (PostgresFixture fixture = new PostgresFixture()) {
			// The table as the release before trace contexts made it, with an item.
			PostgresDatabase.execute("ALTER TABLE " + fixture.table() + " DROP COLUMN trace");
			PostgresDatabase.execute("INSERT INTO " + fixture.table()
					+ " (queue, item, state, priority, ready_at, seq) VALUES ('q', 'a', 0, 0, now(), 1)");
			PostgresDatabase.execute(PostgresWorkQueues.schema(fixture.table()));
			PostgresDatabase.execute(PostgresWorkQueues.schema(fixture.table()));
			assertThat(TestSql.queryString("SELECT data_type FROM information_schema.columns"
					+ " WHERE table_name = ? AND column_name = 'trace'", fixture.table()))
				.isEqualTo("text");
			assertThat(TestSql
				.queryLong("SELECT count(*) FROM " + fixture.table() + " WHERE item = 'a'" + " AND trace IS NULL"))
				.isOne();
		}
	}

	@Test
	void aLeaseTableOfAnEarlierReleaseGetsTheHandOutColumnAndKeepsItsRows() {
		try (PostgresFixture fixture = new PostgresFixture()) {
			// The lease table as the release before hand-out times made it, with a lease.
			PostgresDatabase.execute("ALTER TABLE " + fixture.table() + "_lease DROP COLUMN leased_at");
			PostgresDatabase.execute("INSERT INTO " + fixture.table()
					+ "_lease (token, queue, item, holder, lease_until) VALUES (1, 'q', 'a', 'old', now())");
			PostgresDatabase.execute(PostgresWorkQueues.schema(fixture.table()));
			PostgresDatabase.execute(PostgresWorkQueues.schema(fixture.table()));
			assertThat(
					TestSql.queryString(
							"SELECT data_type FROM information_schema.columns"
									+ " WHERE table_name = ? AND column_name = 'leased_at'",
							fixture.table() + "_lease"))
				.isEqualTo("timestamp with time zone");
			assertThat(TestSql
				.queryLong("SELECT count(*) FROM " + fixture.table() + "_lease WHERE item = 'a' AND leased_at IS NULL"))
				.as("not known: null")
				.isOne();
		}
	}

	@Test
	void aTableOfTheReleaseBeforeTheLeaseTableGetsItAndItsLeasesAreHonouredUntilTheyRunOut() throws Exception {
		try (PostgresFixture fixture = new PostgresFixture()) {
			// The table as the release before <table>_lease left it: a processing row
			// whose lease is its own lease_until, 30 s from now on the database's time.
			// A given clock is anchored on the database's time when the handle first
			// needs it (after this insert), so its 25 s fall before the lease's end and
			// its 31 s after it, however long the build takes up to 5 s.
			PostgresDatabase.execute("DROP TABLE " + fixture.table() + "_lease");
			PostgresDatabase.execute("INSERT INTO " + fixture.table()
					+ " (queue, item, state, priority, ready_at, seq, token, holder, lease_until) VALUES ('q', 'held', 1, 0, "
					+ "to_timestamp(0), 1, 2, 'old', statement_timestamp() + interval '30 seconds')");
			PostgresDatabase.execute(PostgresWorkQueues.schema(fixture.table()));
			PostgresDatabase.execute(PostgresWorkQueues.schema(fixture.table()));
			FakeClock clock = new FakeClock();
			DelayingQueue<String> queue = fixture.builder("q")
				.clock(clock)
				.lease(Duration.ofSeconds(3))
				.listen(false)
				.vacuum(VacuumPolicy.NEVER)
				.buildDelayingQueue();
			try {
				clock.step(Duration.ofSeconds(25));
				assertThat(queue.poll(Duration.ZERO)).as("leased by an instance of the earlier release").isNull();
				// Past the lease and the next tick (a third of the lease).
				clock.step(Duration.ofSeconds(6));
				await().atMost(Duration.ofSeconds(10)).until(() -> "held".equals(queue.poll(Duration.ZERO)));
				queue.done("held");
				assertThat(TestSql.count(fixture.table())).isZero();
			}
			finally {
				queue.shutDown();
			}
		}
	}

	@Test
	void theDeadLettersOfAnEarlierReleaseMoveIntoTheGivenUpRecordsOnce() {
		try (PostgresFixture fixture = new PostgresFixture()) {
			// The tables as the release before given-up records left them: no
			// <table>_given_up, a payload the codec could not decode kept in _limit.
			String table = fixture.table();
			PostgresDatabase.execute("DROP TABLE " + table + "_given_up");
			PostgresDatabase
				.execute("INSERT INTO " + table + "_limit (queue, kind, item, count, at, holder, expires_at)"
						+ " VALUES ('q', 'dead-letter', 'bad', 3, '2026-01-02T03:04:05Z', 'cannot read', 'infinity'),"
						+ " ('q', 'failures:attempts', 'other', 2, NULL, NULL, 'infinity')");
			PostgresDatabase.execute(PostgresWorkQueues.schema(table));
			PostgresDatabase.execute(PostgresWorkQueues.schema(table));
			assertThat(TestSql.queryString("SELECT item || ' ' || attempts || ' ' || reason || ' '"
					+ " || coalesce(holder, 'none') || ' ' || (given_up_at = '2026-01-02T03:04:05Z')" + " FROM " + table
					+ "_given_up WHERE queue = 'q'"))
				.isEqualTo("bad 0 cannot read none true");
			assertThat(TestSql.queryLong("SELECT count(*) FROM " + table + "_given_up")).isOne();
			assertThat(TestSql.queryString("SELECT string_agg(kind, ',') FROM " + table + "_limit"))
				.as("the dead letter moved, the rest kept")
				.isEqualTo("failures:attempts");
			assertThat(
					TestSql.queryString("SELECT indexdef FROM pg_indexes WHERE indexname = ?", table + "_givenup_at"))
				.contains("(queue, given_up_at)");
		}
	}

	@Test
	void aTableWithADollarInItsNameGetsItsSchema() {
		PostgresDatabase.execute("CREATE SCHEMA IF NOT EXISTS wq_dollar_test");
		try {
			PostgresDatabase.execute(PostgresWorkQueues.schema("wq_dollar_test.items$x"));
			PostgresDatabase.execute(PostgresWorkQueues.schema("wq_dollar_test.items$x"));
		}
		finally {
			PostgresDatabase.execute("DROP SCHEMA wq_dollar_test CASCADE");
		}
	}

	@Test
	void aTableThatIsNotAnIdentifierIsRefusedNamingTheArgument() {
		assertThatIllegalArgumentException().isThrownBy(() -> PostgresWorkQueues.schema("items; DROP TABLE x"))
			.withMessageContaining("table");
		assertThatIllegalArgumentException().isThrownBy(() -> PostgresWorkQueues.schema("a.b.c"))
			.withMessageContaining("table");
		// Two dollars would end the DO blocks' $$ quotes early; one is a plain
		// identifier.
		assertThatIllegalArgumentException().isThrownBy(() -> PostgresWorkQueues.schema("items$$x"))
			.withMessageContaining("table");
	}

}
