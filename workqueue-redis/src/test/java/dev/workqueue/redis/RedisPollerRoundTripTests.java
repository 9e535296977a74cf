package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueue;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker's step from one item to the next is one script when the next is ready: the
 * done rides with the get. Counted with {@code INFO commandstats} on a server of the
 * test's own, whose queue's timer has done its first run and sleeps for minutes, so that
 * only the worker's scripts run.
 */
@RequiresRedis
class RedisPollerRoundTripTests {

	private RedisServers.Server server;

	private RedisClient client;

	private RedisCommands<String, String> admin;

	private WorkQueue<String> queue;

	@BeforeEach
	void start() {
		RedisServers.assumeRedisServer();
		this.server = RedisServers.start();
		this.client = RedisClient.create(this.server.uri());
		this.admin = this.client.connect().sync();
		this.queue = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("q")
			.lease(Duration.ofMinutes(30))
			.heartbeat(Duration.ofMinutes(30))
			.buildQueue();
		RedisWorkQueue<?> handle = (RedisWorkQueue<?>) this.queue;
		await().atMost(Duration.ofSeconds(10)).until(() -> handle.reportsSharedGauges());
	}

	@AfterEach
	void stop() {
		if (this.queue != null) {
			this.queue.shutDown();
		}
		if (this.client != null) {
			this.client.shutdown();
		}
		if (this.server != null) {
			this.server.kill();
		}
	}

	/** The scripts the server has run so far. */
	private long scripts() {
		return calls("cmdstat_evalsha:", "cmdstat_eval:");
	}

	/** Every command the server has run so far (a script's own included), but INFO. */
	private long commands() {
		return calls("cmdstat_") - calls("cmdstat_info:");
	}

	private long calls(String... prefixes) {
		long calls = 0;
		for (String line : this.admin.info("commandstats").split("\r?\n")) {
			if (Stream.of(prefixes).anyMatch(line::startsWith)) {
				String rest = line.substring(line.indexOf("calls=") + "calls=".length());
				calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
			}
		}
		return calls;
	}

	@Test
	void aDoneAndPollWithAnItemReadyIsOneScript() throws Exception {
		this.queue.addAll(List.of("a", "b", "c", "d"));
		Poller<String> poller = Pollers.of(this.queue);
		assertThat(poller.poll(Duration.ZERO)).isEqualTo(new Prioritized<>("a", 0));
		// The first run of each script on a server loads it (EVALSHA, then EVAL).
		assertThat(poller.doneAndPoll("a", Duration.ZERO)).isEqualTo(new Prioritized<>("b", 0));
		long before = scripts();
		long commandsBefore = commands();
		assertThat(poller.doneAndPoll("b", Duration.ZERO)).isEqualTo(new Prioritized<>("c", 0));
		assertThat(scripts() - before).as("one script: the done and the get").isOne();
		// docs/redis.md, "Commands per operation": done_get's 16, the get's one EXISTS of
		// the pause flag, the trace contexts, the waiting set and the list included (no
		// item waits: no ZRANGEBYSCORE; b was its get's first item: the done forgets the
		// grant).
		assertThat(commands() - commandsBefore).as("the commands of a done and a get of one item").isEqualTo(16);
		assertThat(this.admin.hkeys(QueueKeys.key("workqueue:", "q", "leases"))).containsExactly("c");
		this.queue.done("c");
		assertThat(poller.poll(Duration.ZERO)).isEqualTo(new Prioritized<>("d", 0));
		before = scripts();
		this.queue.done("d");
		assertThat(scripts() - before).as("a done alone is a script too: the count sees each").isOne();
	}

	@Test
	void aGetThatFindsNothingIsFourCommandsInEitherLayout() {
		QueueKeys keys = QueueKeys.of("workqueue:", "empty");
		for (LuaScript get : List.of(LuaScript.GET, LuaScript.PGET)) {
			long commandsBefore = commands();
			assertThat(look(keys, get)).isEmpty();
			// EVAL, one EXISTS of the paused flag and of the sets or list the get would
			// read (no TIME, no look at them), the grants' HGET (a get run again answers
			// its first run's items), DEL of the wake list.
			assertThat(commands() - commandsBefore).as(get + ": the commands of a get that finds nothing").isEqualTo(4);
		}
	}

	/** Runs a get of one item, as a handle does, on the server's clock. */
	private List<Object> look(QueueKeys keys, LuaScript get) {
		List<String> args = new ArrayList<>(List.of("", keys.channel(), "30000000", "h:1", "1"));
		if (get == LuaScript.PGET) {
			args.add("-1");
		}
		return this.admin.eval(get.source(), get.output(), keys.all(), args.toArray(String[]::new));
	}

}
