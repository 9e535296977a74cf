package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wake watch under consumers that start and stop waiting all the time (polls of a
 * millisecond): whatever the count of waiting consumers does between the watch's looks at
 * it, a wait goes out only on lists it just saw wanted, and the watch never fails (a
 * failure makes every consumer look only at each heartbeat for a second).
 */
@RequiresRedis
class RedisWakeWatchChurnTests {

	private static final int CONSUMERS = 8;

	private static final int POLLS = 20_000;

	/** Long enough to wait, short enough to stop waiting again at once. */
	private static final Duration WAIT = Duration.ofNanos(20_000);

	private final Logger watchLogger = Logger.getLogger(WakeWatch.class.getName());

	private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();

	private final Handler capture = new Handler() {

		@Override
		public void publish(LogRecord record) {
			if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
				RedisWakeWatchChurnTests.this.warnings.add(record);
			}
		}

		@Override
		public void flush() {
		}

		@Override
		public void close() {
		}

	};

	private RedisServers.Server server;

	private RedisClient client;

	private WorkQueue<String> queue;

	@BeforeEach
	void start() {
		RedisServers.assumeRedisServer();
		this.watchLogger.addHandler(this.capture);
		this.server = RedisServers.start();
		this.client = RedisClient.create(this.server.uri());
		this.queue = RedisWorkQueues.builder(this.client, ItemCodec.strings()).name("churn").buildQueue();
	}

	@AfterEach
	void stop() {
		this.watchLogger.removeHandler(this.capture);
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

	@Test
	void consumersThatWaitAMillisecondAtATimeNeverFailTheWatch() throws Exception {
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> consumers = new ArrayList<>();
		for (int c = 0; c < CONSUMERS; c++) {
			Thread consumer = new Thread(() -> {
				try {
					Poller<String> poller = Pollers.of(this.queue);
					for (int i = 0; i < POLLS; i++) {
						assertThat(poller.poll(WAIT)).isNull();
					}
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
			}, "churn-" + c);
			consumers.add(consumer);
			consumer.start();
		}
		for (Thread consumer : consumers) {
			consumer.join(120_000);
			assertThat(consumer.isAlive()).isFalse();
		}
		assertThat(failures).isEmpty();
		assertThat(this.warnings).extracting(LogRecord::getThrown).isEmpty();
	}

}
