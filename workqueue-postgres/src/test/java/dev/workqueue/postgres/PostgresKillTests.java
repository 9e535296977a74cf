package dev.workqueue.postgres;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.WorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A JVM killed with SIGKILL while its consumers hold items that one claim leased for all
 * of them: none of its leases outlives the kill by more than a lease on the database's
 * clock, and the instance that lives on queues every one again and processes it.
 */
@RequiresPostgres
class PostgresKillTests {

	private static final Duration LEASE = Duration.ofSeconds(2);

	private static final int CONSUMERS = 8;

	private final EngineFixture fixture = new EngineFixture();

	private Process process;

	@AfterEach
	void stop() throws Exception {
		try {
			if (this.process != null) {
				this.process.destroyForcibly().waitFor();
			}
		}
		finally {
			this.fixture.close();
		}
	}

	private long held(long pid) {
		return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + " WHERE state = 1 AND holder LIKE ?",
				pid + "-%");
	}

	@Test
	void itemsLeasedInOneClaimComeBackWithinTheirLeaseAndTheSurvivorProcessesThem() throws Exception {
		WorkQueue<String> survivor = this.fixture
			.track(this.fixture.tableFixture().builder("shared").lease(LEASE).buildDelayingQueue());
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		this.process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				PostgresHoldingProcess.class.getName(), PostgresDatabase.URL, this.fixture.table(), "shared",
				Long.toString(LEASE.toMillis()), Integer.toString(CONSUMERS))
			.redirectErrorStream(true)
			.start();
		BufferedReader output = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8));
		for (String line = output.readLine(); !"waiting".equals(line); line = output.readLine()) {
			assertThat(line).as("the holding JVM's output").isNotNull();
		}
		List<String> items = IntStream.range(0, CONSUMERS).mapToObj((i) -> "item-" + i).toList();
		survivor.addAll(items);
		long pid = this.process.pid();
		await().atMost(Duration.ofSeconds(20)).until(() -> held(pid) == CONSUMERS);
		this.process.destroyForcibly().waitFor();
		long killedAtMicros = TestSql.queryLong("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint");
		assertThat(TestSql.queryLong("SELECT max((extract(epoch FROM lease_until) * 1000000)::bigint) FROM "
				+ this.fixture.table() + "_lease WHERE holder LIKE ?", pid + "-%"))
			.as("no lease outlives its holder by more than a lease")
			.isLessThanOrEqualTo(killedAtMicros + LEASE.toNanos() / 1000);
		await().atMost(Duration.ofSeconds(30)).until(() -> held(pid) == 0);
		List<String> taken = new ArrayList<>();
		for (int i = 0; i < CONSUMERS; i++) {
			String item = survivor.poll(Duration.ofSeconds(10));
			assertThat(item).isNotNull();
			taken.add(item);
			survivor.done(item);
		}
		assertThat(taken).containsExactlyInAnyOrderElementsOf(items);
		assertThat(TestSql.count(this.fixture.table())).isZero();
		assertThat(EngineFixture.handle(survivor).stalled()).as("queued again by the survivor").isEqualTo(CONSUMERS);
	}

}
