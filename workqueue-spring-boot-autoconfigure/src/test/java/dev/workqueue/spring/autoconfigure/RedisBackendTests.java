package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.RedisWorkQueueCustomizer;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint;
import dev.workqueue.spring.autoconfigure.endpoint.WorkQueuesEndpointAutoConfiguration;
import dev.workqueue.spring.autoconfigure.metrics.WorkQueueMetricsAutoConfiguration;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Queues whose {@code backend} is {@code redis}: built on Boot's Redis connection, served
 * by the same workers, with shared rate limiters. Needs the {@link LocalRedis}.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisBackendTests {

	private static final String PREFIX = LocalRedis.uniquePrefix();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, WorkQueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + LocalRedis.HOST, "workqueue.redis.key-prefix=" + PREFIX,
				"workqueue.queues.orders.backend=redis",
				"workqueue.queues.orders.rate-limiter.exponential.base-delay=1ms",
				"workqueue.queues.orders.rate-limiter.exponential.max-delay=10ms",
				"workqueue.queues.local.concurrency=1");

	@BeforeAll
	static void redisAnswers() {
		LocalRedis.assumeAnswers();
	}

	@AfterEach
	void deleteKeys() {
		LocalRedis.deleteKeys(PREFIX);
	}

	@Test
	void aRedisQueueIsServedByItsWorkersAndRetriesWithTheSharedLimiter() {
		this.contextRunner.withBean(FlakyWorker.class).run((context) -> {
			assertThat(context).hasNotFailed();
			RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			assertThat(orders.capability(SharedWorkQueue.class)).isPresent();
			assertThat(orders.name()).isEqualTo("orders");
			assertThat(context.getBean("local", RateLimitingQueue.class).capability(SharedWorkQueue.class)).isEmpty();
			orders.add("a");
			orders.add("b");
			FlakyWorker worker = context.getBean(FlakyWorker.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> worker.succeeded.containsAll(List.of("a", "b")));
			assertThat(worker.calls).filteredOn("a"::equals).hasSize(2);
			assertThat(context.getBean(WorkQueueDetails.class).backend("orders")).isEqualTo("redis");
			assertThat(context.getBean(WorkQueueDetails.class).backend("local")).isEqualTo("memory");
			assertThat(context.getBean(WorkerContainerRegistry.class).containers())
				.allSatisfy((status) -> assertThat(status.running()).isTrue());
		});
	}

	@Test
	void theClockBeanTimesTheMemoryQueuesOnlyAndTheRedisQueueKeepsTheServersClock() {
		this.contextRunner.withUserConfiguration(WorkQueueAutoConfigurationTests.FakeClockConfiguration.class)
			.run((context) -> {
				FakeClock clock = context.getBean(FakeClock.class);
				RateLimitingQueue<String> local = context.getBean(WorkQueueRegistry.class).get("local");
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				local.addAfter("memory", Duration.ofHours(1));
				orders.addAfter("redis", Duration.ofHours(1));
				clock.step(Duration.ofHours(2));
				assertThat(local.poll(Duration.ZERO)).isEqualTo("memory");
				assertThat(orders.poll(Duration.ZERO)).as("an hour on the server's clock").isNull();
				assertThat(mark()).isEqualTo("2:S");
			});
	}

	@Test
	void aCustomizerGivesARedisQueueItsClock() {
		FakeClock clock = new FakeClock();
		this.contextRunner.withBean(RedisWorkQueueCustomizer.class, () -> (name, builder) -> builder.clock(clock))
			.run((context) -> {
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.addAfter("redis", Duration.ofHours(1));
				assertThat(orders.poll(Duration.ZERO)).isNull();
				clock.step(Duration.ofHours(1));
				await().atMost(Duration.ofSeconds(5)).until(() -> "redis".equals(orders.poll(Duration.ZERO)));
				orders.done("redis");
				assertThat(mark()).isEqualTo("2:C");
			});
	}

	/** The format and kind of clock the queue keeps with its data. */
	private static String mark() {
		return LocalRedis.call((commands) -> commands.get(PREFIX + "{orders}:mark"));
	}

	@Test
	void pausedWorkersOfARedisQueueLeaseNothingAndResume(CapturedOutput output) {
		this.contextRunner.withBean(FlakyWorker.class).run((context) -> {
			WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
			RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			FlakyWorker worker = context.getBean(FlakyWorker.class);
			// Let the worker thread block in get, on Redis's notice, before pausing.
			orders.add("b");
			await().atMost(Duration.ofSeconds(5)).until(() -> worker.succeeded.contains("b"));
			workers.setPaused("orders", true);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> Thread.getAllStackTraces()
					.entrySet()
					.stream()
					.filter((entry) -> entry.getKey().getName().matches("workqueue-orders-\\d+"))
					.allMatch((entry) -> Arrays.stream(entry.getValue())
						.anyMatch((frame) -> frame.getMethodName().equals("awaitTurn"))));
			orders.add("c");
			assertThat(orders.stats().processing()).as("nothing leased while paused").isZero();
			assertThat(orders.size()).isOne();
			workers.setPaused("orders", false);
			await().atMost(Duration.ofSeconds(5)).until(() -> worker.succeeded.contains("c"));
			assertThat(output).doesNotContain("failed to hand out");
		});
	}

	@Test
	void aRedisQueueWithoutWorkersIsShutDownBeforeTheConnectionFactoryStops() {
		AtomicReference<RateLimitingQueue<String>> orders = new AtomicReference<>();
		List<Boolean> shutDownWhenTheFactoryStopped = new CopyOnWriteArrayList<>();
		// The factory closes the client when it stops, before the queue beans are closed.
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(LocalRedis.HOST, LocalRedis.PORT)) {

			@Override
			public void stop() {
				shutDownWhenTheFactoryStopped.add(orders.get().isShuttingDown());
				super.stop();
			}

		};
		this.contextRunner.withBean(LettuceConnectionFactory.class, () -> factory).run((context) -> {
			orders.set(context.getBean(WorkQueueRegistry.class).get("orders"));
			orders.get().add("a");
		});
		assertThat(shutDownWhenTheFactoryStopped).isNotEmpty().containsOnly(true);
	}

	@Test
	void aRedisQueueWithoutLatencyTimersRecordsTheRestOfItsMeters() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(WorkQueueMetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withBean(FlakyWorker.class)
			.withPropertyValues("workqueue.queues.orders.latency-timers=false")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.add("a");
				orders.add("b");
				FlakyWorker worker = context.getBean(FlakyWorker.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> worker.succeeded.containsAll(List.of("a", "b")));
				assertThat(registry.get("workqueue.adds").tag("name", "orders").counter().count()).isEqualTo(2);
				assertThat(registry.get("workqueue.retries").tag("name", "orders").counter().count()).isOne();
				assertThat(registry.find("workqueue.depth").tag("name", "orders").gauge()).isNotNull();
				assertThat(registry.find("workqueue.queue.duration").tag("name", "orders").meters()).isEmpty();
				assertThat(registry.find("workqueue.work.duration").tag("name", "orders").meters()).isEmpty();
				assertThat(registry.find("workqueue.work.duration").tag("name", "local").timer()).isNotNull();
			});
	}

	@Test
	void endpointDescribesAQueueWhoseRedisCannotBeReachedWithTheReason(CapturedOutput output) {
		this.contextRunner.withConfiguration(AutoConfigurations.of(WorkQueuesEndpointAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + LocalPostgres.deadPort(), "spring.data.redis.timeout=250ms",
					"management.endpoints.web.exposure.include=workqueues")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				WorkQueuesEndpoint endpoint = context.getBean(WorkQueuesEndpoint.class);
				WorkQueuesEndpoint.WorkQueueDescriptor orders = endpoint.queues()
					.queues()
					.stream()
					.filter((queue) -> queue.name().equals("orders"))
					.findFirst()
					.orElseThrow();
				assertThat(orders.backend()).isEqualTo("redis");
				assertThat(orders.error()).startsWith("cannot read the queue: ");
				assertThat(orders.depth()).isNull();
				assertThat(endpoint.queue("local").depth()).isZero();
				assertThat(output).doesNotContain("ERROR");
			});
	}

	@Test
	void aLeaseUnderTheFloorFailsStartUpNamingTheKey() {
		this.contextRunner.withPropertyValues("workqueue.redis.lease=500ms")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("workqueue.redis.lease must be at least 1s, was 500ms"));
	}

	static class FlakyWorker {

		final List<String> calls = new CopyOnWriteArrayList<>();

		final List<String> succeeded = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		public void process(String item) {
			this.calls.add(item);
			if (item.equals("a") && this.calls.stream().filter("a"::equals).count() == 1) {
				throw new IllegalStateException("first try of a fails");
			}
			this.succeeded.add(item);
		}

	}

}
