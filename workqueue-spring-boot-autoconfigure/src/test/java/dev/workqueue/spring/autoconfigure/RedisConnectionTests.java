package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redis connection of the redis queues is the one Spring Boot gives the application:
 * Spring Data Redis's connection factory when there is one, else Boot's
 * {@link DataRedisConnectionDetails}; and all the queues share it. Needs the
 * {@link LocalRedis}.
 */
class RedisConnectionTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final String PREFIX = LocalRedis.uniquePrefix();

	private final String clientName = "wq-test-" + UUID.randomUUID();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues("workqueue.redis.key-prefix=" + PREFIX, "workqueue.defaults.backend=redis",
				"workqueue.queues.orders.concurrency=1")
		.withBean(Worker.class);

	private final ApplicationContextRunner bootContextRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, WorkQueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + LocalRedis.HOST,
				"spring.data.redis.client-name=" + this.clientName);

	@BeforeAll
	static void redisAnswers() {
		LocalRedis.assumeAnswers();
	}

	@AfterEach
	void deleteKeys() {
		LocalRedis.deleteKeys(PREFIX);
	}

	@Test
	void withoutAConnectionFactoryTheQueuesConnectThroughBootsConnectionDetails() {
		// What @ServiceConnection and Docker Compose support define.
		DataRedisConnectionDetails details = new DataRedisConnectionDetails() {

			@Override
			public Standalone getStandalone() {
				return Standalone.of(LocalRedis.HOST, LocalRedis.PORT);
			}

		};
		this.contextRunner.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
			.withBean(DataRedisConnectionDetails.class, () -> details)
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(LettuceConnectionFactory.class);
				context.getBean(WorkQueueRegistry.class).<String>get("orders").add("a");
				await().atMost(TIMEOUT).until(() -> context.getBean(Worker.class).processed.contains("orders:a"));
			});
	}

	@Test
	void withoutAnyRedisConnectionStartUpFailsNamingWhatToAdd() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("Queue 'orders' has backend redis, but the application has no Redis connection")
				.hasMessageContaining("spring-boot-starter-data-redis")
				.hasMessageContaining("DataRedisConnectionDetails"));
	}

	@Test
	void bootsConnectionFactoryAppliesEverySpringDataRedisProperty() {
		// The client name is one the starter's own binding used to ignore.
		this.bootContextRunner.run((context) -> {
			context.getBean(WorkQueueRegistry.class).<String>get("orders").add("a");
			await().atMost(TIMEOUT).until(() -> context.getBean(Worker.class).processed.contains("orders:a"));
			assertThat(LocalRedis.connectionsNamed(this.clientName)).isPositive();
		});
	}

	@Test
	void aConnectionFactoryTheApplicationDefinesWins() {
		String userClientName = "wq-user-" + UUID.randomUUID();
		this.bootContextRunner.withBean(LettuceConnectionFactory.class, () -> {
			LettuceClientConfiguration client = LettuceClientConfiguration.builder().clientName(userClientName).build();
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration(LocalRedis.HOST, LocalRedis.PORT),
					client);
		}).run((context) -> {
			context.getBean(WorkQueueRegistry.class).<String>get("orders").add("a");
			await().atMost(TIMEOUT).until(() -> context.getBean(Worker.class).processed.contains("orders:a"));
			assertThat(LocalRedis.connectionsNamed(userClientName)).isPositive();
			assertThat(LocalRedis.connectionsNamed(this.clientName)).isZero();
		});
	}

	@Test
	void sixQueuesWithWorkersAndLimitersOpenAtMostFourConnectionsInAll() {
		List<String> names = List.of("payments", "invoices", "emails", "refunds", "exports", "imports");
		this.bootContextRunner.withBean(SixQueueWorker.class)
			.withPropertyValues(
					names.stream().map((name) -> "workqueue.queues." + name + ".concurrency=1").toArray(String[]::new))
			.withPropertyValues("workqueue.defaults.rate-limiter.exponential.base-delay=1ms",
					"workqueue.defaults.rate-limiter.exponential.max-delay=10ms",
					"workqueue.defaults.rate-limiter.bucket.qps=100",
					"workqueue.defaults.rate-limiter.bucket.burst=100")
			.run((context) -> {
				WorkQueueRegistry queues = context.getBean(WorkQueueRegistry.class);
				SixQueueWorker worker = context.getBean(SixQueueWorker.class);
				// Each item fails once: the limiters and the failure counts are used too.
				names.forEach((name) -> queues.<String>get(name).add("a"));
				await().atMost(TIMEOUT).until(() -> worker.succeeded.size() == names.size());
				assertThat(worker.failed).hasSize(names.size());
				// The factory itself opens no connection: nothing else uses it here.
				assertThat(LocalRedis.connectionsNamed(this.clientName)).as("connections of the redis queues")
					.isBetween(1L, 4L);
			});
	}

	static class Worker {

		final Set<String> processed = ConcurrentHashMap.newKeySet();

		@QueueWorker(queue = "orders")
		void process(String item) {
			this.processed.add("orders:" + item);
		}

	}

	/** One worker per queue but orders, each failing an item's first attempt. */
	static class SixQueueWorker {

		final Set<String> failed = ConcurrentHashMap.newKeySet();

		final Set<String> succeeded = ConcurrentHashMap.newKeySet();

		@QueueWorker(queue = "payments")
		void payments(String item) {
			process("payments", item);
		}

		@QueueWorker(queue = "invoices")
		void invoices(String item) {
			process("invoices", item);
		}

		@QueueWorker(queue = "emails")
		void emails(String item) {
			process("emails", item);
		}

		@QueueWorker(queue = "refunds")
		void refunds(String item) {
			process("refunds", item);
		}

		@QueueWorker(queue = "exports")
		void exports(String item) {
			process("exports", item);
		}

		@QueueWorker(queue = "imports")
		void imports(String item) {
			process("imports", item);
		}

		private void process(String queue, String item) {
			if (this.failed.add(queue + ":" + item)) {
				throw new IllegalStateException("first attempt of " + item + " fails");
			}
			this.succeeded.add(queue + ":" + item);
		}

	}

}
