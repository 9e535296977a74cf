package dev.workqueue.postgres;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three JVMs share one queue, as separate processes ({@link PostgresWorkerProcess}, two
 * consumers each, every default on: listening, vacuuming); one is killed with SIGKILL
 * mid-run. Every item is processed at least once; the killed JVM's items come back once
 * their lease runs out on the database's clock (no lease outlives the kill by more than a
 * lease) and are processed by the others; no item ever has two live holders; and items
 * the killed JVM never held are processed exactly once. Delayed items added before every
 * worker stopped are processed by a fresh one.
 */
@RequiresPostgres
class PostgresThreeProcessTests {

	private static final int ITEMS = 2000;

	private static final Duration LEASE = Duration.ofSeconds(2);

	private final EngineFixture fixture = new EngineFixture();

	private final List<Process> processes = new ArrayList<>();

	PostgresThreeProcessTests() {
		PostgresDatabase.execute("CREATE TABLE " + results(table()) + " (item text PRIMARY KEY, holder integer,"
				+ " done_by integer, processed integer NOT NULL DEFAULT 0, marker integer, marker_until timestamptz);"
				+ " CREATE TABLE " + violations(table()) + " (detail text)");
	}

	/** Who held and who finished each item: the workers write it. */
	static String results(String table) {
		return table + "_results";
	}

	/** An item taken while another held it live. */
	static String violations(String table) {
		return table + "_violations";
	}

	@AfterEach
	void stop() throws Exception {
		try {
			this.processes.forEach(Process::destroyForcibly);
			for (Process process : this.processes) {
				process.waitFor();
			}
			this.fixture.close();
		}
		finally {
			PostgresDatabase.execute("DROP TABLE IF EXISTS " + results(table()) + ", " + violations(table()));
		}
	}

	private String table() {
		return this.fixture.table();
	}

	private Process startWorker(String... extra) throws IOException {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				PostgresWorkerProcess.class.getName(), PostgresDatabase.URL, table(), "shared",
				Long.toString(LEASE.toMillis()), "2", (extra.length > 0) ? extra[0] : "")
			.redirectErrorStream(true)
			.redirectOutput(File.createTempFile("pg-worker", ".log"))
			.start();
		this.processes.add(process);
		return process;
	}

	/** A producer in this JVM, with the defaults. */
	private DelayingQueue<String> producer() {
		return this.fixture.track(this.fixture.tableFixture().builder("shared").lease(LEASE).buildDelayingQueue());
	}

	/** Item to holder, done_by and processed, as the workers recorded them. */
	private Map<String, int[]> results() throws SQLException {
		Map<String, int[]> results = new HashMap<>();
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT item, holder, done_by, processed FROM " + results(table()));
				ResultSet rows = statement.executeQuery()) {
			while (rows.next()) {
				results.put(rows.getString(1), new int[] { rows.getInt(2), rows.getInt(3), rows.getInt(4) });
			}
		}
		return results;
	}

	private long processed() {
		return TestSql.queryLong("SELECT count(*) FROM " + results(table()) + " WHERE processed > 0");
	}

	private List<String> violations() throws SQLException {
		List<String> found = new ArrayList<>();
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection.prepareStatement("SELECT detail FROM " + violations(table()));
				ResultSet rows = statement.executeQuery()) {
			while (rows.next()) {
				found.add(rows.getString(1));
			}
		}
		return found;
	}

	private long databaseMicros() {
		return TestSql.queryLong("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint");
	}

	@Test
	void killedWorkersItemsComeBackWithinTheLeaseAndNoItemHasTwoLiveHolders() throws Exception {
		DelayingQueue<String> producer = producer();
		// The victim takes the first item and hangs on it, renewing its lease.
		Process victim = startWorker("hang");
		int victimPid = (int) victim.pid();
		producer.add("item-0");
		await().atMost(Duration.ofSeconds(60)).until(() -> {
			int[] row = results().get("item-0");
			return row != null && row[0] == victimPid;
		});
		startWorker();
		startWorker();
		List<String> items = new ArrayList<>();
		for (int i = 1; i < ITEMS; i++) {
			items.add("item-" + i);
			if (items.size() == 100) {
				producer.addAll(items);
				items.clear();
			}
		}
		producer.addAll(items);
		await().atMost(Duration.ofSeconds(60)).until(() -> processed() >= ITEMS / 3);
		assertThat(results().get("item-0")[2]).as("never handed out again while its holder lives").isZero();
		victim.destroyForcibly().waitFor();
		long killedAtMicros = databaseMicros();
		// What the killed JVM held: handed to it, not finished by it.
		Map<String, int[]> atKill = results();
		Set<String> stranded = atKill.entrySet()
			.stream()
			.filter((entry) -> entry.getValue()[0] == victimPid && entry.getValue()[1] != victimPid)
			.map(Map.Entry::getKey)
			.collect(Collectors.toSet());
		assertThat(stranded).contains("item-0");
		// Its leases in the table (claimed ahead too): none outlives it by more than a
		// lease, on the database's clock.
		Long latestLease = TestSql.queryLong("SELECT max((extract(epoch FROM lease_until) * 1000000)::bigint) FROM "
				+ table() + "_lease WHERE holder LIKE ?", victimPid + "-%");
		assertThat(latestLease).as("the killed JVM's leases").isNotNull();
		assertThat(latestLease).as("no lease outlives its holder by more than a lease")
			.isLessThanOrEqualTo(killedAtMicros + LEASE.toNanos() / 1000);
		await().atMost(Duration.ofSeconds(60)).until(() -> {
			Map<String, int[]> now = results();
			return stranded.stream().allMatch((item) -> now.get(item)[1] != 0 && now.get(item)[1] != victimPid);
		});
		await().atMost(Duration.ofSeconds(60)).until(() -> processed() == ITEMS);
		await().atMost(Duration.ofSeconds(30)).until(() -> TestSql.count(table()) == 0);
		assertThat(violations()).isEmpty();
		Map<String, int[]> end = results();
		assertThat(end).hasSize(ITEMS);
		assertThat(end.entrySet())
			.filteredOn((entry) -> atKill.get(entry.getKey()) == null || atKill.get(entry.getKey())[0] != victimPid)
			.as("items the killed JVM never held: processed once")
			.allSatisfy((entry) -> assertThat(entry.getValue()[2]).as(entry.getKey()).isOne());
	}

	@Test
	void delayedItemsOutliveEveryWorkerAndAreProcessedByAFreshOne() throws Exception {
		DelayingQueue<String> producer = producer();
		List<Process> first = List.of(startWorker(), startWorker());
		for (int i = 0; i < 20; i++) {
			producer.addAfter("later-" + i, Duration.ofSeconds(5));
		}
		producer.shutDown();
		for (Process process : first) {
			process.destroyForcibly().waitFor();
		}
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + table() + " WHERE state = 0")).isEqualTo(20);
		startWorker();
		await().atMost(Duration.ofSeconds(60)).until(() -> processed() == 20);
		await().atMost(Duration.ofSeconds(30)).until(() -> TestSql.count(table()) == 0);
		assertThat(violations()).isEmpty();
	}

}
