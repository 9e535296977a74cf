package dev.workqueue.redis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Three JVMs share one queue, as separate processes; one is killed with SIGKILL mid-run.
 * Every item is processed at least once, the killed JVM's items come back once their
 * lease runs out on the server's clock (at most a lease after the kill), then a tick, no
 * item ever has two live holders (a Redis-side {@code SET NX} marker per held item), and
 * delayed items added before every JVM stopped are processed by a fresh one. 3,000 items
 * keep the run to a few seconds on a 2-core machine.
 */
@RequiresRedis
class ThreeProcessTests {

	private static final int ITEMS = 3000;

	private static final Duration LEASE = Duration.ofSeconds(2);

	private final RedisFixture redis = new RedisFixture();

	private final String results = this.redis.prefix + "results";

	private final List<Process> processes = new ArrayList<>();

	@AfterEach
	void stop() throws Exception {
		this.processes.forEach(Process::destroyForcibly);
		for (Process process : this.processes) {
			process.waitFor();
		}
		this.redis.close();
	}

	private Process startWorker(String... extra) throws IOException {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				QueueWorkerProcess.class.getName(), RedisServers.shared().toURI().toString(), this.redis.prefix,
				"shared", Long.toString(LEASE.toMillis()), this.results, (extra.length > 0) ? extra[0] : "")
			.redirectErrorStream(true)
			.redirectOutput(File.createTempFile("worker", ".log"))
			.start();
		this.processes.add(process);
		return process;
	}

	private Map<String, String> hash(String part) {
		return this.redis.redis().hgetall(this.results + ":" + part);
	}

	private long serverMicros() {
		List<String> time = this.redis.redis().time();
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
	}

	@Test
	void killedWorkersItemsComeBackAndNoItemHasTwoLiveHolders() throws Exception {
		DelayingQueue<String> producer = this.redis.track(this.redis.builder("shared").buildDelayingQueue());
		// The victim takes the first item and hangs on it, renewing its lease.
		Process victim = startWorker("hang");
		String victimPid = Long.toString(victim.pid());
		producer.add("item-0");
		await().atMost(Duration.ofSeconds(30)).until(() -> victimPid.equals(hash("holders").get("item-0")));
		startWorker();
		startWorker();
		for (int i = 1; i < ITEMS; i++) {
			producer.add("item-" + i);
		}
		await().atMost(Duration.ofSeconds(60)).until(() -> hash("processed").size() >= ITEMS / 3);
		assertThat(hash("processed")).as("never handed out again while its holder lives").doesNotContainKey("item-0");
		victim.destroyForcibly().waitFor();
		// What the killed JVM held: handed to it, not finished by it.
		Map<String, String> holders = hash("holders");
		Map<String, String> doneBy = hash("doneby");
		Set<String> stranded = holders.entrySet()
			.stream()
			.filter((entry) -> victimPid.equals(entry.getValue()) && !victimPid.equals(doneBy.get(entry.getKey())))
			.map(Map.Entry::getKey)
			.collect(Collectors.toSet());
		assertThat(stranded).contains("item-0");
		// The promise is about the server's clock: each stranded lease runs out at most a
		// lease after the kill, and the next tick hands the item back (it then waits at
		// the
		// tail of the queue). Wait on that, with room for a loaded machine, rather than
		// on a
		// bound in real time.
		long killedAtMicros = serverMicros();
		String processing = this.redis.key("shared", "processing");
		Map<String, Double> victimLeases = stranded.stream()
			.filter((item) -> this.redis.redis().zscore(processing, item) != null)
			.collect(Collectors.toMap((item) -> item, (item) -> this.redis.redis().zscore(processing, item)));
		long expiresAtMicros = victimLeases.values().stream().mapToLong(Double::longValue).max().orElse(killedAtMicros);
		assertThat(expiresAtMicros).as("no lease outlives its holder by more than a lease")
			.isLessThanOrEqualTo(killedAtMicros + LEASE.toNanos() / 1000);
		await().atMost(Duration.ofSeconds(30)).until(() -> serverMicros() >= expiresAtMicros);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> victimLeases.entrySet()
				.stream()
				.noneMatch((lease) -> lease.getValue().equals(this.redis.redis().zscore(processing, lease.getKey()))));
		await().atMost(Duration.ofSeconds(60)).until(() -> {
			Map<String, String> finished = hash("doneby");
			return stranded.stream()
				.allMatch((item) -> finished.containsKey(item) && !victimPid.equals(finished.get(item)));
		});
		await().atMost(Duration.ofSeconds(60)).until(() -> hash("processed").size() == ITEMS);
		assertThat(this.redis.redis().lrange(this.results + ":violations", 0, -1)).isEmpty();
		assertThat(hash("processed").values()).allSatisfy((count) -> assertThat(Integer.parseInt(count)).isPositive());
	}

	@Test
	void delayedItemsOutliveEveryWorkerAndAreProcessedByAFreshOne() throws Exception {
		DelayingQueue<String> producer = this.redis.track(this.redis.builder("shared").buildDelayingQueue());
		List<Process> first = List.of(startWorker(), startWorker());
		for (int i = 0; i < 20; i++) {
			producer.addAfter("later-" + i, Duration.ofSeconds(2));
		}
		producer.shutDown();
		for (Process process : first) {
			process.destroyForcibly().waitFor();
		}
		assertThat(this.redis.redis().zcard(this.redis.key("shared", "waiting"))).isEqualTo(20);
		startWorker();
		await().atMost(Duration.ofSeconds(20)).until(() -> hash("processed").size() == 20);
		assertThat(this.redis.redis().lrange(this.results + ":violations", 0, -1)).isEmpty();
	}

}
