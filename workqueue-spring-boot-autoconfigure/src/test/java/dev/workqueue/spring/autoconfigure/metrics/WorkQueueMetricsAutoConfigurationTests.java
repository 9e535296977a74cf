package dev.workqueue.spring.autoconfigure.metrics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;
import dev.workqueue.spring.autoconfigure.WorkQueueMetricsFactory;
import dev.workqueue.spring.metrics.WorkQueueMeters;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link WorkQueueMetricsAutoConfiguration}.
 */
class WorkQueueMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(WorkQueueAutoConfiguration.class, WorkQueueMetricsAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=1");

	@Test
	void everyMeterOfAConfiguredQueueIsRegisteredWhenTheQueueIsCreated() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasBean("orders");
			assertThat(workQueueMeters(context.getBean(MeterRegistry.class))).hasSize(9).allSatisfy((meter) -> {
				assertThat(meter.getId().getTag("name")).isEqualTo("orders");
				assertThat(meter.measure()).allSatisfy((measurement) -> assertThat(measurement.getValue()).isZero());
			});
		});
	}

	@Test
	void aPriorityQueueGetsItsDepthByPriorityWhenItIsCreated() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("workqueue.queues.alerts.priority.enabled=true")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("workqueue.depth.by.priority").gauges())
					.extracting((gauge) -> gauge.getId().getTag("name") + ":" + gauge.getId().getTag("priority"))
					.containsExactlyInAnyOrder("alerts:0", "alerts:other");
				PriorityQueue<String> alerts = context.getBean("alerts", PriorityQueue.class);
				alerts.add("a", 9);
				assertThat(registry.get("workqueue.depth.by.priority").tag("priority", "0").gauge().value()).isZero();
				assertThat(registry.get("workqueue.depth.by.priority").tag("priority", "9").gauge().value()).isOne();
				assertThat(registry.get("workqueue.depth").tag("name", "alerts").gauge().value()).isOne();
			});
	}

	@Test
	void durationsAreMeasuredOnTheClockBean() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).withBean(FakeClock.class).run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			RateLimitingQueue<String> orders = context.getBean("orders", RateLimitingQueue.class);
			orders.add("a");
			clock.step(Duration.ofSeconds(2));
			assertThat(orders.get()).isEqualTo("a");
			clock.step(Duration.ofSeconds(3));
			orders.done("a");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Timer queueDuration = registry.get("workqueue.queue.duration").tag("name", "orders").timer();
			assertThat(queueDuration.count()).isOne();
			assertThat(queueDuration.totalTime(TimeUnit.SECONDS)).isEqualTo(2.0);
			Timer workDuration = registry.get("workqueue.work.duration").tag("name", "orders").timer();
			assertThat(workDuration.count()).isOne();
			assertThat(workDuration.totalTime(TimeUnit.SECONDS)).isEqualTo(3.0);
			assertThat(registry.get("workqueue.adds").tag("name", "orders").counter().count()).isOne();
		});
	}

	@Test
	void latencyTimersOffInTheDefaultsLeavesTheTimersOutOfEveryQueueAndTheRestCounts() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("workqueue.defaults.latency-timers=false", "workqueue.queues.emails.concurrency=1")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.getMeters()).extracting((meter) -> meter.getId().getName())
					.noneMatch((name) -> name.startsWith("workqueue.queue.duration"))
					.noneMatch((name) -> name.startsWith("workqueue.work.duration"));
				for (String queue : List.of("orders", "emails")) {
					assertThat(workQueueMeters(registry))
						.filteredOn((meter) -> queue.equals(meter.getId().getTag("name")))
						.extracting((meter) -> meter.getId().getName())
						.containsExactlyInAnyOrder("workqueue.depth", "workqueue.adds", "workqueue.unfinished.work",
								"workqueue.longest.running.processor", "workqueue.retries", "workqueue.delayed.items",
								"workqueue.stalled");
				}
				RateLimitingQueue<String> orders = context.getBean("orders", RateLimitingQueue.class);
				orders.add("a");
				assertThat(registry.get("workqueue.adds").tag("name", "orders").counter().count()).isOne();
				assertThat(registry.get("workqueue.depth").tag("name", "orders").gauge().value()).isOne();
				orders.addAfter("b", Duration.ofHours(1));
				assertThat(registry.get("workqueue.retries").tag("name", "orders").counter().count()).isOne();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> registry.get("workqueue.delayed.items").tag("name", "orders").gauge().value() == 1);
				assertThat(orders.get()).isEqualTo("a");
				orders.done("a");
				assertThat(registry.find("workqueue.queue.duration").meters()).isEmpty();
				assertThat(registry.find("workqueue.work.duration").meters()).isEmpty();
			});
	}

	@Test
	void aQueuesLatencyTimersOverrideTheDefaultsOff() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("workqueue.defaults.latency-timers=false",
					"workqueue.queues.orders.latency-timers=true", "workqueue.queues.emails.concurrency=1")
			.run((context) -> assertThat(timedQueues(context.getBean(MeterRegistry.class))).containsExactly("orders"));
	}

	@Test
	void aQueuesLatencyTimersOverrideTheDefaultsOn() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("workqueue.queues.orders.latency-timers=false", "workqueue.queues.emails.concurrency=1")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(timedQueues(registry)).containsExactly("emails");
				RateLimitingQueue<String> emails = context.getBean("emails", RateLimitingQueue.class);
				emails.add("a");
				assertThat(emails.get()).isEqualTo("a");
				emails.done("a");
				assertThat(registry.get("workqueue.work.duration").tag("name", "emails").timer().count()).isOne();
			});
	}

	@Test
	void workersRecordIntoTheMetersWithoutLatencyTimers() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withUserConfiguration(OrdersWorkerConfiguration.class)
			.withPropertyValues("workqueue.queues.orders.latency-timers=false")
			.run((context) -> {
				RateLimitingQueue<String> orders = context.getBean("orders", RateLimitingQueue.class);
				orders.add("a");
				orders.add("b");
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> orders.stats().processing() == 0 && orders.stats().depth() == 0);
				assertThat(registry.get("workqueue.adds").tag("name", "orders").counter().count()).isEqualTo(2);
				assertThat(registry.find("workqueue.work.duration").meters()).isEmpty();
			});
	}

	@Test
	void prometheusScrapeWithoutLatencyTimersHasNoDurationSeries() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					PrometheusMetricsExportAutoConfiguration.class))
			.withPropertyValues("workqueue.defaults.latency-timers=false")
			.run((context) -> {
				context.getBean("orders", RateLimitingQueue.class).add("a");
				String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
				assertThat(scrape)
					.contains("workqueue_depth{name=\"orders\"} 1.0", "workqueue_adds_total{name=\"orders\"} 1.0",
							"workqueue_unfinished_work_seconds{name=\"orders\"} 0.0",
							"workqueue_longest_running_processor_seconds{name=\"orders\"} 0.0",
							"workqueue_retries_total{name=\"orders\"} 0.0",
							"workqueue_delayed_items{name=\"orders\"} 0.0")
					.doesNotContain("workqueue_queue_duration", "workqueue_work_duration");
			});
	}

	@Test
	void workersRecordIntoTheMeters() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withUserConfiguration(OrdersWorkerConfiguration.class)
			.run((context) -> {
				RateLimitingQueue<String> orders = context.getBean("orders", RateLimitingQueue.class);
				orders.add("a");
				orders.add("b");
				orders.add("c");
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> registry.get("workqueue.work.duration").tag("name", "orders").timer().count() == 3);
				assertThat(registry.get("workqueue.adds").tag("name", "orders").counter().count()).isEqualTo(3);
				assertThat(registry.get("workqueue.queue.duration").tag("name", "orders").timer().count()).isEqualTo(3);
			});
	}

	@Test
	void metersOfAQueueAreRemovedWhenItsBeanIsDestroyed() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		this.contextRunner.withBean(MeterRegistry.class, () -> registry).run((context) -> {
			assertThat(workQueueMeters(registry)).hasSize(9);
			context.close();
			assertThat(registry.getMeters()).isEmpty();
		});
	}

	@Test
	void queueBeanOfTheApplicationGetsGaugesNamedAfterTheBean() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withBean("emails", RateLimitingQueue.class,
					() -> WorkQueues.builder().buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter()))
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				context.getBean("emails", RateLimitingQueue.class).add("a");
				assertThat(registry.find("workqueue.depth").tag("name", "emails").gauge().value()).isOne();
				assertThat(registry.find("workqueue.delayed.items").tag("name", "emails").gauge()).isNotNull();
				assertThat(registry.find("workqueue.unfinished.work").tag("name", "emails").timeGauge()).isNotNull();
				assertThat(registry.find("workqueue.longest.running.processor").tag("name", "emails").timeGauge())
					.isNotNull();
				// Its metrics hook is the application's business: no counters or timers.
				assertThat(registry.find("workqueue.adds").tag("name", "emails").counter()).isNull();
			});
	}

	@Test
	void applicationsCustomizerMayReplaceTheMetricsHook() {
		AtomicInteger adds = new AtomicInteger();
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withBean("applicationCustomizer", WorkQueueCustomizer.class,
					() -> (name, builder) -> builder.metrics(new WorkQueueMetrics() {

						@Override
						public void added() {
							adds.incrementAndGet();
						}

					}))
			.run((context) -> {
				context.getBean("orders", RateLimitingQueue.class).add("a");
				assertThat(adds).hasValue(1);
				assertThat(context.getBean(MeterRegistry.class).get("workqueue.adds").counter().count()).isZero();
			});
	}

	@Test
	void applicationWorkQueueMetersBeanIsUsed() {
		WorkQueueMeters meters = new WorkQueueMeters(new SimpleMeterRegistry());
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withBean(WorkQueueMeters.class, () -> meters)
			.run((context) -> {
				assertThat(context).getBean(WorkQueueMeters.class).isSameAs(meters);
				assertThat(workQueueMeters(context.getBean(MeterRegistry.class))).isEmpty();
			});
	}

	@Test
	void registryOfSpringBootsMetricsAutoConfigurationIsUsed() {
		this.contextRunner
			.withConfiguration(
					AutoConfigurations.of(MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(WorkQueueMeters.class);
				assertThat(workQueueMeters(context.getBean(MeterRegistry.class))).hasSize(9);
			});
	}

	@Test
	void prometheusScrapeHasTheClientGoSeries() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					PrometheusMetricsExportAutoConfiguration.class))
			.run((context) -> {
				context.getBean("orders", RateLimitingQueue.class).add("a");
				String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
				assertThat(scrape).contains("workqueue_depth{name=\"orders\"} 1.0",
						"workqueue_adds_total{name=\"orders\"} 1.0",
						"workqueue_queue_duration_seconds_bucket{name=\"orders\",le=\"1.0E-8\"} 0",
						"workqueue_queue_duration_seconds_bucket{name=\"orders\",le=\"10.0\"} 0",
						"workqueue_work_duration_seconds_count{name=\"orders\"} 0",
						"workqueue_unfinished_work_seconds{name=\"orders\"} 0.0",
						"workqueue_longest_running_processor_seconds{name=\"orders\"} 0.0",
						"workqueue_retries_total{name=\"orders\"} 0.0", "workqueue_delayed_items{name=\"orders\"} 0.0");
			});
	}

	@Test
	void backsOffWithoutMicrometer() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run((context) -> {
			assertThat(context).hasNotFailed().hasBean("orders").doesNotHaveBean(WorkQueueMeters.class);
			assertThat(context).doesNotHaveBean(WorkQueueMetricsFactory.class);
		});
	}

	@Test
	void backsOffWithoutMeterRegistry() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.hasBean("orders")
			.doesNotHaveBean(WorkQueueMeters.class)
			.doesNotHaveBean(WorkQueueMetricsFactory.class));
	}

	@Test
	void backsOffWhenWorkQueuesAreDisabled() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("workqueue.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(WorkQueueMeters.class);
				assertThat(context.getBean(MeterRegistry.class).getMeters()).isEmpty();
			});
	}

	/**
	 * The meters of the contract, without the bucket gauges that non-Prometheus
	 * registries add for each timer ({@code workqueue.queue.duration.histogram}).
	 */
	private static List<Meter> workQueueMeters(MeterRegistry registry) {
		return registry.getMeters()
			.stream()
			.filter((meter) -> meter.getId().getName().startsWith("workqueue."))
			.filter((meter) -> !meter.getId().getName().endsWith(".histogram"))
			.toList();
	}

	/**
	 * The names of the queues that have both latency timers.
	 */
	private static List<String> timedQueues(MeterRegistry registry) {
		List<String> queueDurations = registry.find("workqueue.queue.duration")
			.timers()
			.stream()
			.map((timer) -> timer.getId().getTag("name"))
			.toList();
		List<String> workDurations = registry.find("workqueue.work.duration")
			.timers()
			.stream()
			.map((timer) -> timer.getId().getTag("name"))
			.toList();
		assertThat(workDurations).containsExactlyInAnyOrderElementsOf(queueDurations);
		return queueDurations;
	}

	@Configuration(proxyBeanMethods = false)
	static class OrdersWorkerConfiguration {

		@Bean
		OrdersWorker ordersWorker() {
			return new OrdersWorker();
		}

	}

	static class OrdersWorker {

		@QueueWorker(queue = "orders")
		void ship(String order) {
		}

	}

}
