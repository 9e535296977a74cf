package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the {@code priority} section of a queue on the memory backend: the queue bean
 * becomes a {@link PriorityQueue}, each key taken from the queue else the defaults.
 */
class PriorityQueueAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class));

	@Test
	void queueWithPriorityEnabledIsAPriorityQueueInjectableAsBothTypesAndFoundByTheRegistry() {
		this.contextRunner
			.withPropertyValues("workqueue.queues.orders.priority.enabled=true",
					"workqueue.queues.emails.concurrency=1")
			.withUserConfiguration(PriorityInjectionConfiguration.class)
			.run((context) -> {
				Object orders = context.getBean("orders");
				assertThat(orders).isInstanceOf(PriorityQueue.class);
				assertThat(context.getBean("emails")).isNotInstanceOf(PriorityQueue.class);
				PriorityInjectionConfiguration injected = context.getBean(PriorityInjectionConfiguration.class);
				assertThat(injected.priorities).isSameAs(orders);
				assertThat(injected.queue).isSameAs(orders);
				assertThat(context.getBean(WorkQueueRegistry.class).<String>get("orders")).isSameAs(orders);
				assertThat(context.getBeanNamesForType(PriorityQueue.class)).containsExactly("orders");
			});
	}

	@Test
	void priorityIsOffByDefault() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1").run((context) -> {
			assertThat(context.getBean("orders")).isNotInstanceOf(PriorityQueue.class);
			WorkQueueSettings settings = context.getBean(WorkQueueSettings.class);
			assertThat(settings.get("orders").priority()).isEqualTo(new QueuePriority(false, null));
		});
	}

	@Test
	void eachPriorityKeyIsTakenFromTheQueueElseFromTheDefaults() {
		this.contextRunner.withPropertyValues("workqueue.defaults.priority.enabled=true",
				"workqueue.defaults.priority.starvation-timeout=5m", "workqueue.queues.orders.priority.enabled=false",
				"workqueue.queues.invoices.concurrency=1", "workqueue.queues.emails.priority.starvation-timeout=1s")
			.run((context) -> {
				WorkQueueProperties properties = context.getBean(WorkQueueProperties.class);
				WorkQueueSettings settings = context.getBean(WorkQueueSettings.class);
				assertThat(properties.getDefaults().getPriority().getStarvationTimeout())
					.isEqualTo(Duration.ofMinutes(5));
				assertThat(properties.getQueues().get("emails").getPriority().getEnabled()).isNull();
				assertThat(settings.get("orders").priority())
					.isEqualTo(new QueuePriority(false, Duration.ofMinutes(5)));
				assertThat(settings.get("invoices").priority())
					.isEqualTo(new QueuePriority(true, Duration.ofMinutes(5)));
				assertThat(settings.get("emails").priority()).isEqualTo(new QueuePriority(true, Duration.ofSeconds(1)));
				assertThat(context.getBean("orders")).isNotInstanceOf(PriorityQueue.class);
				assertThat(context.getBean("invoices")).isInstanceOf(PriorityQueue.class);
				assertThat(context.getBean("emails")).isInstanceOf(PriorityQueue.class);
			});
	}

	@Test
	void priorityKeysAreReadFromYaml() {
		this.contextRunner.withInitializer(new ConfigDataApplicationContextInitializer())
			.withPropertyValues("spring.config.location=classpath:priority/valid.yml")
			.run((context) -> {
				WorkQueueSettings settings = context.getBean(WorkQueueSettings.class);
				assertThat(settings.get("orders").priority()).isEqualTo(new QueuePriority(true, Duration.ofMinutes(2)));
				assertThat(settings.get("alerts").priority())
					.isEqualTo(new QueuePriority(true, Duration.ofSeconds(10)));
				assertThat(settings.get("emails").priority())
					.isEqualTo(new QueuePriority(false, Duration.ofMinutes(2)));
				assertThat(context.getBeanNamesForType(PriorityQueue.class)).containsExactlyInAnyOrder("orders",
						"alerts");
			});
	}

	@Test
	void invalidPriorityKeysInYamlFailStartUpEachNamingItsFullKey() {
		this.contextRunner.withInitializer(new ConfigDataApplicationContextInitializer())
			.withPropertyValues("spring.config.location=classpath:priority/invalid.yml")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(InvalidWorkQueuePropertiesException.class)
				.satisfies((ex) -> assertThat(((InvalidWorkQueuePropertiesException) ex).getProblems())
					.containsExactlyInAnyOrder(
							"workqueue.defaults.priority.starvation-timeout must not be negative, was -1m",
							"workqueue.queues.orders.priority.starvation-timeout must not be negative, was -5s",
							"workqueue.queues.orders.priority.strict is not a workqueue property; a queue and the "
									+ "defaults take " + WorkQueuePropertiesValidator.KNOWN_KEYS)));
	}

	@Test
	void withoutAStarvationTimeoutPriorityIsStrict() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.priority.enabled=true")
			.withUserConfiguration(WorkQueueAutoConfigurationTests.FakeClockConfiguration.class)
			.run((context) -> assertThat(lowReadyForAMinuteThenHigh(context.getBean(FakeClock.class),
					context.getBean(WorkQueueRegistry.class).get("orders")))
				.isEqualTo(new PriorityQueue.Prioritized<>("high", 5)));
	}

	@Test
	void withAStarvationTimeoutAnItemReadyLongerGoesFirst() {
		this.contextRunner
			.withPropertyValues("workqueue.queues.orders.priority.enabled=true",
					"workqueue.queues.orders.priority.starvation-timeout=30s")
			.withUserConfiguration(WorkQueueAutoConfigurationTests.FakeClockConfiguration.class)
			.run((context) -> assertThat(lowReadyForAMinuteThenHigh(context.getBean(FakeClock.class),
					context.getBean(WorkQueueRegistry.class).get("orders")))
				.isEqualTo(new PriorityQueue.Prioritized<>("low", -5)));
	}

	private static PriorityQueue.Prioritized<String> lowReadyForAMinuteThenHigh(FakeClock clock,
			RateLimitingQueue<String> queue) throws InterruptedException {
		PriorityQueue<String> priorities = (PriorityQueue<String>) queue;
		priorities.add("low", -5);
		clock.step(Duration.ofMinutes(1));
		priorities.add("high", 5);
		return priorities.pollWithPriority(Duration.ZERO);
	}

	@Test
	void customizersApplyToPriorityQueues() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.priority.enabled=true")
			.withUserConfiguration(RecordingCustomizerConfiguration.class)
			.run((context) -> {
				assertThat(context.getBean(RecordingCustomizerConfiguration.class).customized)
					.containsExactly("orders");
				assertThat(context.getBean("orders")).isInstanceOf(PriorityQueue.class);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class PriorityInjectionConfiguration {

		final PriorityQueue<String> priorities;

		final RateLimitingQueue<Long> queue;

		PriorityInjectionConfiguration(@Qualifier("orders") PriorityQueue<String> priorities,
				@Qualifier("orders") RateLimitingQueue<Long> queue) {
			this.priorities = priorities;
			this.queue = queue;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingCustomizerConfiguration {

		final List<String> customized = new CopyOnWriteArrayList<>();

		@Bean
		WorkQueueCustomizer recordingCustomizer() {
			return (name, builder) -> this.customized.add(name);
		}

	}

}
