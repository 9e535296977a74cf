package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.worker.FailureTracking;
import dev.workqueue.spring.worker.QueueWorkerAnnotationBeanPostProcessor;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.spring.worker.WorkerSettings;
import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link WorkQueueAutoConfiguration}: properties become queue beans, settings
 * and limiters; user beans win; customizers and the clock bean are used.
 */
class WorkQueueAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class));

	@Test
	void withoutSpringBootsRedisSupportARedisQueueFailsStartUpNamingWhatToAdd() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
			.withPropertyValues("workqueue.queues.orders.backend=redis")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("Queue 'orders' has backend redis")
				.hasMessageContaining("add dev.workqueue:workqueue-redis and spring-boot-starter-data-redis"));
	}

	@Test
	void memoryQueuesNeedNoRedisConnectionWhenTheRedisBackendIsOnTheClassPath() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=2").run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(QueueBackend.beanName(WorkQueueProperties.Backend.REDIS))
				.doesNotHaveBean(QueueBackend.beanName(WorkQueueProperties.Backend.POSTGRES));
			assertThat(context.getBean(WorkQueueDetails.class).backend("orders")).isEqualTo("memory");
		});
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(WorkQueueProperties.Backend.class)
	void eachBackendIsOneQueueBackendBeanNamedByTheRuleDefinedOnlyWhenAQueueHasIt(WorkQueueProperties.Backend backend) {
		this.contextRunner
			.withInitializer(
					(context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
			.withPropertyValues("workqueue.queues.orders.backend=" + backend.value(),
					"workqueue.postgres.initialize-schema=never")
			.run((context) -> {
				ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
				assertThat(beanFactory.getBeanNamesForType(QueueBackend.class, true, false))
					.containsExactly(QueueBackend.beanName(backend));
				assertThat(beanFactory.getBeanDefinition("orders").getDependsOn())
					.containsExactly(QueueBackend.beanName(backend));
			});
	}

	@Test
	void queueBeansAreClosedWithTheContext() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=2").run((context) -> {
			assertThat(context.getBeanFactory().getBeanDefinition("orders").getDestroyMethodName()).isEqualTo("close");
			RateLimitingQueue<?> orders = context.getBean("orders", RateLimitingQueue.class);
			context.close();
			assertThat(orders.isShuttingDown()).isTrue();
		});
	}

	@Test
	void createsOneQueueBeanPerConfiguredQueueNamedAfterIt() {
		this.contextRunner
			.withPropertyValues("workqueue.queues.orders.concurrency=2", "workqueue.queues.emails.max-retries=3")
			.run((context) -> {
				assertThat(context.getBeansOfType(RateLimitingQueue.class)).containsOnlyKeys("orders", "emails");
				assertThat(context.getBean("orders", RateLimitingQueue.class).name()).isEqualTo("orders");
				assertThat(context.getBean("emails", RateLimitingQueue.class).name()).isEqualTo("emails");
				assertThat(context.getBean(WorkQueueRegistry.class).names()).containsExactly("orders", "emails");
			});
	}

	@Test
	void emptyQueueEntryCreatesAQueueWithTheDefaults() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders=").run((context) -> {
			assertThat(context).hasBean("orders");
			assertThat(context.getBean(WorkQueueSettings.class).get("orders").workers())
				.isEqualTo(new WorkerSettings(1, 10, Duration.ofSeconds(30), Duration.ofSeconds(1)));
		});
	}

	@Test
	void emptyQueueEntryOfALowerSourceGivesWayToKeysOfThatQueue() {
		this.contextRunner.withSystemProperties("workqueue.queues.orders=")
			.withPropertyValues("workqueue.queues.orders.concurrency=3")
			.run((context) -> assertThat(context.getBean(WorkQueueSettings.class).get("orders").workers())
				.isEqualTo(new WorkerSettings(3, 10, Duration.ofSeconds(30), Duration.ofSeconds(1))));
	}

	@Test
	void createsNoQueueWhenNoneIsConfigured() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimitingQueue.class);
			assertThat(context.getBean(WorkQueueRegistry.class).names()).isEmpty();
			assertThat(context).hasSingleBean(WorkerContainerRegistry.class);
		});
	}

	@Test
	void queueBeanIsInjectableWithAnyItemType() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1")
			.withUserConfiguration(TypedInjectionConfiguration.class)
			.run((context) -> {
				RateLimitingQueue<?> orders = context.getBean("orders", RateLimitingQueue.class);
				assertThat(context.getBean(TypedInjectionConfiguration.class).strings).isSameAs(orders);
				assertThat(context.getBean(TypedInjectionConfiguration.class).numbers).isSameAs(orders);
			});
	}

	@Test
	void enabledFalseCreatesNothing() {
		this.contextRunner.withPropertyValues("workqueue.enabled=false", "workqueue.queues.orders.concurrency=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean("orders");
				assertThat(context).doesNotHaveBean(WorkQueueRegistry.class);
				assertThat(context).doesNotHaveBean(WorkQueueProperties.class);
				assertThat(context).doesNotHaveBean(WorkerContainerRegistry.class);
				assertThat(context).doesNotHaveBean(QueueWorkerAnnotationBeanPostProcessor.class);
			});
	}

	@Test
	void enabledFalseSkipsValidation() {
		this.contextRunner.withPropertyValues("workqueue.enabled=false", "workqueue.queues.orders.concurrency=0")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void applicationQueueBeanWinsAndIsWhatTheRegistryReturns() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=2")
			.withUserConfiguration(UserQueueConfiguration.class)
			.run((context) -> {
				RateLimitingQueue<?> userQueue = context.getBean(UserQueueConfiguration.class).orders;
				assertThat(context.getBean("orders")).isSameAs(userQueue);
				assertThat(context.getBeansOfType(RateLimitingQueue.class)).hasSize(2);
				WorkQueueRegistry registry = context.getBean(WorkQueueRegistry.class);
				assertThat(registry.<String>get("orders")).isSameAs(userQueue);
				assertThat(registry.<String>get("audits")).isSameAs(context.getBean("audits"));
				assertThat(registry.names()).containsExactlyInAnyOrder("orders", "audits");
				assertThat(context.getBean(WorkQueueDetails.class).rateLimiter("orders")).isEmpty();
			});
	}

	@Test
	void aBeanOfTheQueuesNameThatCannotBeAQueueFailsStartUpNamingTheKeyAndTheBean() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=2")
			.withBean("orders", StringBuilder.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("workqueue.queues.orders")
				.hasMessageContaining("bean 'orders'")
				.hasMessageContaining(StringBuilder.class.getName()));
	}

	@Test
	void registryReturnsTheQueueBeanAndTheLimiterItWasBuiltWith() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.rate-limiter.bucket.qps=5").run((context) -> {
			WorkQueueRegistry registry = context.getBean(WorkQueueRegistry.class);
			assertThat(registry.<Object>get("orders")).isSameAs(context.getBean("orders"));
			WorkQueueDetails details = context.getBean(WorkQueueDetails.class);
			assertThat(details.rateLimiter("orders")).get().hasToString("BucketRateLimiter[qps=5.0, burst=100]");
			assertThat(details.rateLimiter("unknown")).isEmpty();
		});
	}

	@Test
	void registryGetOfUnknownNameListsTheKnownNames() {
		this.contextRunner
			.withPropertyValues("workqueue.queues.orders.concurrency=1", "workqueue.queues.emails.concurrency=1")
			.run((context) -> assertThatIllegalArgumentException()
				.isThrownBy(() -> context.getBean(WorkQueueRegistry.class).get("invoices"))
				.withMessage("No work queue named 'invoices'; known queues: [emails, orders]"));
	}

	@Test
	void afterTheContextClosesTheRegistrySaysTheQueuesAreShutDownAndBuildsNoNewOne() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1").run((context) -> {
			WorkQueueRegistry registry = context.getBean(WorkQueueRegistry.class);
			RateLimitingQueue<String> orders = registry.get("orders");
			context.close();
			assertThat(orders.isShuttingDown()).isTrue();
			assertThatIllegalStateException().isThrownBy(() -> registry.get("orders"))
				.withMessage("Work queue 'orders' is not available: the application context is closed "
						+ "and its queues are shut down");
			assertThat(registry.names()).containsExactly("orders");
		});
	}

	@Test
	void registryNamesAreUnmodifiable() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1")
			.run((context) -> assertThat(context.getBean(WorkQueueRegistry.class).names()).isUnmodifiable());
	}

	@Test
	void customizersAreAppliedInOrderToEveryQueueTheStarterBuilds() {
		this.contextRunner
			.withPropertyValues("workqueue.queues.orders.concurrency=1", "workqueue.queues.emails.concurrency=1")
			.withUserConfiguration(CustomizerConfiguration.class, UserQueueConfiguration.class)
			.run((context) -> {
				CustomizerConfiguration customizers = context.getBean(CustomizerConfiguration.class);
				assertThat(customizers.calls).containsExactly("first:emails", "second:emails");
				RateLimitingQueue<String> emails = context.getBean(WorkQueueRegistry.class).get("emails");
				emails.add("hello");
				assertThat(customizers.adds).hasValue(1);
			});
	}

	@Test
	void queuesRunOnTheClockBean() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1")
			.withUserConfiguration(FakeClockConfiguration.class)
			.run((context) -> {
				FakeClock clock = context.getBean(FakeClock.class);
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.addAfter("a", Duration.ofSeconds(1));
				assertThat(orders.size()).isZero();
				clock.step(Duration.ofSeconds(1));
				assertThat(orders.size()).as("due on the fake clock, not the system's").isOne();
			});
	}

	@Test
	void queueBeanIsShutDownWhenTheContextCloses() {
		AtomicReference<RateLimitingQueue<?>> orders = new AtomicReference<>();
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1").run((context) -> {
			orders.set(context.getBean("orders", RateLimitingQueue.class));
			assertThat(orders.get().isShuttingDown()).isFalse();
		});
		assertThat(orders.get().isShuttingDown()).isTrue();
	}

	@Test
	void propertiesAreBound() {
		this.contextRunner
			.withPropertyValues("workqueue.defaults.concurrency=3", "workqueue.defaults.max-retries=-1",
					"workqueue.defaults.shutdown-timeout=1m", "workqueue.defaults.rate-limiter.max-wait=2s",
					"workqueue.queues.orders.concurrency=4", "workqueue.queues.orders.max-retries=5",
					"workqueue.queues.orders.shutdown-timeout=10s",
					"workqueue.queues.orders.rate-limiter.exponential.base-delay=1ms",
					"workqueue.queues.orders.rate-limiter.exponential.max-delay=1s",
					"workqueue.queues.orders.rate-limiter.fast-slow.fast-delay=2ms",
					"workqueue.queues.orders.rate-limiter.fast-slow.slow-delay=3s",
					"workqueue.queues.orders.rate-limiter.fast-slow.max-fast-attempts=4",
					"workqueue.queues.orders.rate-limiter.bucket.qps=0.5",
					"workqueue.queues.orders.rate-limiter.bucket.burst=7",
					"workqueue.queues.orders.rate-limiter.item-bucket.qps=Infinity",
					"workqueue.queues.orders.rate-limiter.item-bucket.burst=1",
					"workqueue.queues.orders.rate-limiter.max-wait=1h")
			.run((context) -> {
				WorkQueueProperties properties = context.getBean(WorkQueueProperties.class);
				assertThat(properties.isEnabled()).isTrue();
				assertThat(properties.getDefaults().getConcurrency()).isEqualTo(3);
				assertThat(properties.getDefaults().getMaxRetries()).isEqualTo(-1);
				assertThat(properties.getDefaults().getShutdownTimeout()).isEqualTo(Duration.ofMinutes(1));
				assertThat(properties.getDefaults().getRateLimiter().getMaxWait()).isEqualTo(Duration.ofSeconds(2));
				WorkQueueProperties.Queue orders = properties.getQueues().get("orders");
				assertThat(orders.getConcurrency()).isEqualTo(4);
				assertThat(orders.getMaxRetries()).isEqualTo(5);
				assertThat(orders.getShutdownTimeout()).isEqualTo(Duration.ofSeconds(10));
				WorkQueueProperties.RateLimit rateLimit = orders.getRateLimiter();
				assertThat(rateLimit.getExponential().getBaseDelay()).isEqualTo(Duration.ofMillis(1));
				assertThat(rateLimit.getExponential().getMaxDelay()).isEqualTo(Duration.ofSeconds(1));
				assertThat(rateLimit.getFastSlow().getFastDelay()).isEqualTo(Duration.ofMillis(2));
				assertThat(rateLimit.getFastSlow().getSlowDelay()).isEqualTo(Duration.ofSeconds(3));
				assertThat(rateLimit.getFastSlow().getMaxFastAttempts()).isEqualTo(4);
				assertThat(rateLimit.getBucket().getQps()).isEqualTo(0.5);
				assertThat(rateLimit.getBucket().getBurst()).isEqualTo(7);
				assertThat(rateLimit.getItemBucket().getQps()).isEqualTo(Double.POSITIVE_INFINITY);
				assertThat(rateLimit.getItemBucket().getBurst()).isEqualTo(1);
				assertThat(rateLimit.getMaxWait()).isEqualTo(Duration.ofHours(1));
			});
	}

	@Test
	void defaultsAreThoseOfTheContract() {
		WorkQueueProperties properties = new WorkQueueProperties();
		assertThat(properties.isEnabled()).isTrue();
		assertThat(properties.getDefaults().getConcurrency()).isEqualTo(1);
		assertThat(properties.getDefaults().getMaxRetries()).isEqualTo(10);
		assertThat(properties.getDefaults().getShutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
		assertThat(properties.getDefaults().getRateLimiter()).isNull();
		assertThat(new WorkQueueProperties.Exponential().getBaseDelay()).isEqualTo(Duration.ofMillis(5));
		assertThat(new WorkQueueProperties.Exponential().getMaxDelay()).isEqualTo(Duration.ofSeconds(1000));
		assertThat(new WorkQueueProperties.Bucket().getQps()).isEqualTo(10);
		assertThat(new WorkQueueProperties.Bucket().getBurst()).isEqualTo(100);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("workerSettings")
	void workerSettingsTakeEachKeyFromTheQueueElseFromTheDefaults(String description, String[] properties,
			WorkerSettings expected) {
		this.contextRunner.withPropertyValues(properties)
			.run((context) -> assertThat(context.getBean(WorkQueueSettings.class).get("orders").workers())
				.isEqualTo(expected));
	}

	static Stream<Arguments> workerSettings() {
		return Stream.of(
				Arguments.of("contract defaults", new String[] { "workqueue.queues.orders.rate-limiter.max-wait=1s" },
						new WorkerSettings(1, 10, Duration.ofSeconds(30), Duration.ofSeconds(1))),
				Arguments.of("changed defaults",
						new String[] { "workqueue.defaults.concurrency=2", "workqueue.defaults.max-retries=3",
								"workqueue.defaults.shutdown-timeout=4s", "workqueue.defaults.poll-timeout=2s",
								"workqueue.queues.orders.max-retries=3" },
						new WorkerSettings(2, 3, Duration.ofSeconds(4), Duration.ofSeconds(2))),
				Arguments.of("queue overrides concurrency only",
						new String[] { "workqueue.defaults.concurrency=2", "workqueue.defaults.max-retries=3",
								"workqueue.queues.orders.concurrency=5" },
						new WorkerSettings(5, 3, Duration.ofSeconds(30), Duration.ofSeconds(1))),
				Arguments.of("queue overrides max-retries only",
						new String[] { "workqueue.defaults.max-retries=3", "workqueue.queues.orders.max-retries=-1" },
						new WorkerSettings(1, -1, Duration.ofSeconds(30), Duration.ofSeconds(1))),
				Arguments.of("queue overrides shutdown-timeout only",
						new String[] { "workqueue.defaults.shutdown-timeout=4s",
								"workqueue.queues.orders.shutdown-timeout=0s" },
						new WorkerSettings(1, 10, Duration.ZERO, Duration.ofSeconds(1))),
				Arguments.of("queue overrides poll-timeout only",
						new String[] { "workqueue.defaults.poll-timeout=2s",
								"workqueue.queues.orders.poll-timeout=250ms" },
						new WorkerSettings(1, 10, Duration.ofSeconds(30), Duration.ofMillis(250))),
				Arguments.of("unconfigured queue takes the defaults",
						new String[] { "workqueue.defaults.concurrency=7", "workqueue.queues.emails.concurrency=1" },
						new WorkerSettings(7, 10, Duration.ofSeconds(30), Duration.ofSeconds(1))));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("rateLimiters")
	void rateLimiterIsBuiltFromTheProperties(String description, String[] properties, List<Duration> delays) {
		this.contextRunner.withPropertyValues(properties)
			.withUserConfiguration(FakeClockConfiguration.class)
			.run((context) -> {
				dev.workqueue.ratelimit.RateLimiter<Object> limiter = rateLimiter(
						context.getBean(WorkQueueDetails.class));
				List<Duration> actual = delays.stream().map((expected) -> limiter.when("a")).toList();
				assertThat(actual).isEqualTo(delays);
			});
	}

	@Test
	void exponentialJitterDrawsEachDelayWithinItsFraction() {
		String prefix = "workqueue.queues.orders.rate-limiter.exponential.";
		this.contextRunner.withPropertyValues(prefix + "base-delay=100ms", prefix + "jitter=0.5")
			.withUserConfiguration(FakeClockConfiguration.class)
			.run((context) -> {
				dev.workqueue.ratelimit.RateLimiter<Object> limiter = rateLimiter(
						context.getBean(WorkQueueDetails.class));
				assertThat(limiter.toString()).contains("jitter=0.5");
				for (long exact = 100; exact <= 800; exact *= 2) {
					assertThat(limiter.when("a")).isBetween(Duration.ofMillis(exact / 2), Duration.ofMillis(exact));
				}
			});
	}

	@SuppressWarnings("unchecked")
	private static dev.workqueue.ratelimit.RateLimiter<Object> rateLimiter(WorkQueueDetails registry) {
		return (dev.workqueue.ratelimit.RateLimiter<Object>) registry.rateLimiter("orders").orElseThrow();
	}

	static Stream<Arguments> rateLimiters() {
		String prefix = "workqueue.queues.orders.rate-limiter.";
		return Stream.of(
				Arguments.of("none: client-go's default controller limiter",
						new String[] { "workqueue.queues.orders.concurrency=1" }, millis(5, 10, 20, 40)),
				Arguments.of("exponential",
						new String[] { prefix + "exponential.base-delay=2ms", prefix + "exponential.max-delay=10ms" },
						millis(2, 4, 8, 10, 10)),
				Arguments.of("exponential with max-delay left out takes 1000s",
						new String[] { prefix + "exponential.base-delay=100s" },
						millis(100_000, 200_000, 400_000, 800_000, 1_000_000)),
				Arguments.of("exponential with base-delay left out takes 5ms",
						new String[] { prefix + "exponential.max-delay=12ms" }, millis(5, 10, 12)),
				Arguments.of("fast-slow",
						new String[] { prefix + "fast-slow.fast-delay=1ms", prefix + "fast-slow.slow-delay=1s",
								prefix + "fast-slow.max-fast-attempts=2" },
						millis(1, 1, 1000, 1000)),
				Arguments.of("fast-slow defaults: 5 times 5ms, then 10s",
						new String[] { prefix + "fast-slow.max-fast-attempts=5" }, millis(5, 5, 5, 5, 5, 10_000)),
				Arguments.of("bucket", new String[] { prefix + "bucket.qps=2", prefix + "bucket.burst=1" },
						millis(0, 500, 1000)),
				Arguments.of("bucket with qps left out takes 10", new String[] { prefix + "bucket.burst=1" },
						millis(0, 100, 200)),
				Arguments.of("item-bucket",
						new String[] { prefix + "item-bucket.qps=1", prefix + "item-bucket.burst=2" },
						millis(0, 0, 1000)),
				Arguments.of("several sections: the longest delay",
						new String[] { prefix + "exponential.base-delay=100ms", prefix + "bucket.qps=1",
								prefix + "bucket.burst=2" },
						millis(100, 200, 1000, 2000)),
				Arguments.of("max-wait caps the sections",
						new String[] { prefix + "exponential.base-delay=2ms", prefix + "max-wait=5ms" },
						millis(2, 4, 5, 5)),
				Arguments.of("max-wait alone caps the default limiter", new String[] { prefix + "max-wait=12ms" },
						millis(5, 10, 12, 12)),
				Arguments.of("the defaults' rate-limiter serves a queue without one",
						new String[] { "workqueue.defaults.rate-limiter.exponential.base-delay=3ms",
								"workqueue.queues.orders.concurrency=1" },
						millis(3, 6, 12)),
				Arguments.of("a queue's rate-limiter replaces the defaults' as a whole",
						new String[] { "workqueue.defaults.rate-limiter.exponential.base-delay=3ms",
								"workqueue.defaults.rate-limiter.max-wait=4ms", prefix + "fast-slow.fast-delay=1ms" },
						millis(1, 1, 1, 1, 1, 10_000)));
	}

	private static List<Duration> millis(long... values) {
		return java.util.Arrays.stream(values).mapToObj(Duration::ofMillis).toList();
	}

	@Test
	void defaultRateLimiterIsAMaxOfExponentialAndBucket() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1").run((context) -> {
			WorkQueueDetails registry = context.getBean(WorkQueueDetails.class);
			assertThat(registry.rateLimiter("orders")).get()
				.hasToString(RateLimiters.defaultControllerRateLimiter().toString());
		});
	}

	@Test
	void applicationRegistryBacksOff() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1")
			.withUserConfiguration(UserRegistryConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(WorkQueueRegistry.class);
				assertThat(context.getBean(WorkQueueRegistry.class))
					.isSameAs(context.getBean(UserRegistryConfiguration.class).registry);
			});
	}

	@Test
	void applicationWorkerRegistryAndPostProcessorBackOff() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1")
			.withUserConfiguration(UserWorkerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(WorkerContainerRegistry.class);
				assertThat(context).hasBean("userWorkerContainerRegistry");
				assertThat(context).hasSingleBean(QueueWorkerAnnotationBeanPostProcessor.class);
				assertThat(context).hasBean("userPostProcessor");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class TypedInjectionConfiguration {

		RateLimitingQueue<String> strings;

		RateLimitingQueue<Integer> numbers;

		TypedInjectionConfiguration(@Qualifier("orders") RateLimitingQueue<String> strings,
				@Qualifier("orders") RateLimitingQueue<Integer> numbers) {
			this.strings = strings;
			this.numbers = numbers;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserQueueConfiguration {

		final RateLimitingQueue<String> orders = WorkQueues.<String>builder()
			.name("user-orders")
			.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());

		@Bean
		RateLimitingQueue<String> orders() {
			return this.orders;
		}

		@Bean
		RateLimitingQueue<String> audits() {
			return WorkQueues.<String>builder()
				.name("audits")
				.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomizerConfiguration {

		final List<String> calls = new CopyOnWriteArrayList<>();

		final AtomicInteger adds = new AtomicInteger();

		@Bean
		@Order(2)
		WorkQueueCustomizer secondCustomizer() {
			return (name, builder) -> this.calls.add("second:" + name);
		}

		@Bean
		@Order(1)
		WorkQueueCustomizer firstCustomizer() {
			return (name, builder) -> {
				this.calls.add("first:" + name);
				builder.metrics(new WorkQueueMetrics() {

					@Override
					public void added() {
						CustomizerConfiguration.this.adds.incrementAndGet();
					}

				});
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FakeClockConfiguration {

		@Bean
		FakeClock clock() {
			return new FakeClock();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRegistryConfiguration {

		final WorkQueueRegistry registry = new WorkQueueRegistry() {

			@Override
			public <T> RateLimitingQueue<T> get(String name) {
				throw new IllegalArgumentException(name);
			}

			@Override
			public java.util.Set<String> names() {
				return java.util.Set.of();
			}

		};

		@Bean
		WorkQueueRegistry userRegistry() {
			return this.registry;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserWorkerConfiguration {

		@Bean
		static QueueWorkerAnnotationBeanPostProcessor userPostProcessor() {
			return new QueueWorkerAnnotationBeanPostProcessor();
		}

		@Bean
		WorkerContainerRegistry userWorkerContainerRegistry(QueueWorkerAnnotationBeanPostProcessor endpoints,
				WorkQueueRegistry queues, org.springframework.context.ApplicationEventPublisher publisher) {
			return new WorkerContainerRegistry(endpoints, queues,
					(name) -> new WorkerSettings(1, 0, Duration.ZERO, Duration.ofSeconds(1)),
					(name) -> FailureTracking.inMemory(), Clock.system(), publisher, false);
		}

	}

}
