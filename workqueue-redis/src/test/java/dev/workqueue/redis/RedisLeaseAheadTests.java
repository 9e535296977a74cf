package dev.workqueue.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.spi.Poller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Items a get leased for the consumers waiting beside it never stay leased to nobody: the
 * last consumer to leave hands back what no one took, and so does a shutdown. Each test
 * pauses the writes of a server of its own while a get is under way, so that the consumer
 * it leased for can leave first.
 */
@RequiresRedis
class RedisLeaseAheadTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private static final Duration PAUSE = Duration.ofMillis(1000);

	private RedisServers.Server server;

	private RedisClient client;

	private RedisCommands<String, String> admin;

	private RedisWorkQueue<String> queue;

	/** The poller of the consumer that waits beside the get. */
	private Poller<String> poller;

	@BeforeEach
	void start() {
		RedisServers.assumeRedisServer();
		this.server = RedisServers.start();
		this.client = RedisClient.create(this.server.uri());
		this.admin = this.client.connect().sync();
		this.queue = (RedisWorkQueue<String>) RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("q")
			.buildQueue();
		this.poller = this.queue.newPoller();
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

	private static String key(String part) {
		return QueueKeys.key("workqueue:", "q", part);
	}

	/**
	 * Items ready, without the notice an add sends: the waiting consumer sleeps on.
	 */
	private void readyWithoutNotice(String... items) {
		for (String item : items) {
			this.admin.hset(key("dirty"), item, "0");
			this.admin.rpush(key("queue"), item);
		}
	}

	private void pauseWrites() {
		io.lettuce.core.codec.StringCodec codec = io.lettuce.core.codec.StringCodec.UTF8;
		assertThat(this.admin.dispatch(CommandType.CLIENT, new StatusOutput<>(codec),
				new CommandArgs<>(codec).add("PAUSE").add(PAUSE.toMillis()).add("WRITE")))
			.isEqualTo("OK");
	}

	private static Thread started(Runnable body) {
		Thread thread = new Thread(body);
		thread.start();
		return thread;
	}

	/** A consumer waiting for a notice, then a get under way for itself and for it. */
	private Thread[] waitingConsumerAndPausedGet(AtomicReference<Object> waiting, AtomicReference<Object> getting) {
		Thread consumer = started(() -> waiting.set(poll(() -> this.poller.poll(Duration.ofMinutes(1)))));
		await().atMost(SOON).until(() -> consumer.getState() == Thread.State.TIMED_WAITING);
		// The get leases two, for itself and the consumer: z stays behind them in line.
		readyWithoutNotice("x", "y", "z");
		pauseWrites();
		Thread getter = started(() -> getting.set(poll(() -> this.queue.poll(Duration.ZERO))));
		// Waiting for the answer of its get, which the pause holds back.
		await().atMost(SOON).until(() -> getter.getState() == Thread.State.TIMED_WAITING);
		return new Thread[] { consumer, getter };
	}

	@Test
	void theLastConsumerToLeaveHandsBackWhatWasLeasedForAConsumerThatLeftFirst() throws Exception {
		AtomicReference<Object> waiting = new AtomicReference<>("none yet");
		AtomicReference<Object> getting = new AtomicReference<>("none yet");
		Thread[] threads = waitingConsumerAndPausedGet(waiting, getting);
		this.poller.wakeup();
		threads[0].join(SOON.toMillis());
		assertThat(waiting.get()).as("woken: left with nothing").isNull();
		threads[1].join(SOON.toMillis());
		assertThat(getting.get()).isEqualTo("x");
		assertThat(this.admin.hgetall(key("leases"))).as("y was leased with x").containsOnlyKeys("x");
		assertThat(this.admin.lrange(key("queue"), 0, -1)).as("and handed back in its place in line")
			.containsExactly("y", "z");
		assertThat(this.queue.held()).isOne();
		this.queue.done("x");
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("y");
		this.queue.done("y");
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("z");
	}

	@Test
	void aShutdownHandsBackEverythingAGetUnderWayLeased() throws Exception {
		AtomicReference<Object> waiting = new AtomicReference<>("none yet");
		AtomicReference<Object> getting = new AtomicReference<>("none yet");
		Thread[] threads = waitingConsumerAndPausedGet(waiting, getting);
		this.queue.shutDown();
		for (Thread thread : threads) {
			thread.join(SOON.toMillis());
		}
		assertThat(waiting.get()).isNull();
		assertThat(getting.get()).isNull();
		await().atMost(SOON).until(() -> this.admin.exists(key("leases")) == 0);
		assertThat(this.admin.lrange(key("queue"), 0, -1)).as("in their place in line").containsExactly("x", "y", "z");
		assertThat(this.queue.held()).isZero();
	}

	private static Object poll(Poll poll) {
		try {
			return poll.call();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return ex;
		}
	}

	@FunctionalInterface
	private interface Poll {

		Object call() throws InterruptedException;

	}

}
