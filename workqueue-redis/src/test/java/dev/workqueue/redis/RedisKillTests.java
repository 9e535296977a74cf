package dev.workqueue.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.WorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A JVM killed with SIGKILL while it holds items leased several to a get (each consumer's
 * item under a token of its own): every one comes back within its lease, plus a second,
 * on the server's clock, handed back by the instance that lives on.
 */
@RequiresRedis
class RedisKillTests {

	private static final Duration LEASE = Duration.ofSeconds(2);

	private static final int CONSUMERS = 8;

	private final RedisFixture redis = new RedisFixture();

	private Process process;

	@AfterEach
	void stop() throws Exception {
		if (this.process != null) {
			this.process.destroyForcibly().waitFor();
		}
		this.redis.close();
	}

	private long serverMicros() {
		List<String> time = this.redis.redis().time();
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
	}

	@Test
	void itemsLeasedSeveralToAGetComeBackWithinTheirLeaseAndASecondOfTheKill() throws Exception {
		WorkQueue<String> survivor = this.redis.track(this.redis.builder("shared").lease(LEASE).buildQueue());
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		this.process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				HoldingProcess.class.getName(), RedisServers.shared().toURI().toString(), this.redis.prefix, "shared",
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
		String leases = this.redis.key("shared", "leases");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.redis().hlen(leases) == CONSUMERS);
		Map<String, String> tokens = this.redis.redis().hgetall(leases);
		assertThat(tokens.values()).as("leased several to a get").anyMatch((token) -> token.matches(".*\\.\\d+"));
		this.process.destroyForcibly().waitFor();
		long killedAtMicros = serverMicros();
		String queue = this.redis.key("shared", "queue");
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.redis.redis().llen(queue) == CONSUMERS);
		long backAfterMicros = serverMicros() - killedAtMicros;
		assertThat(this.redis.redis().lrange(queue, 0, -1)).containsExactlyInAnyOrderElementsOf(items);
		assertThat(backAfterMicros).as("µs from the kill until every item was back")
			.isLessThanOrEqualTo(LEASE.plusSeconds(1).toNanos() / 1000);
		assertThat(this.redis.redis().exists(leases)).isZero();
	}

}
