package dev.workqueue.spring.autoconfigure.health;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.actuate.health.WorkQueuesHealthIndicator;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;
import dev.workqueue.spring.worker.WorkerContainerRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link WorkQueuesHealthContributorAutoConfiguration}.
 */
class WorkQueuesHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class,
				WorkQueuesHealthContributorAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=2", "workqueue.queues.invoices.concurrency=1")
		.withUserConfiguration(WorkersConfiguration.class);

	@Test
	void upWhileEveryWorkerPoolRuns() {
		this.contextRunner.run((context) -> {
			assertThat(context).getBean("workqueuesHealthIndicator").isInstanceOf(HealthIndicator.class);
			Health health = context.getBean(WorkQueuesHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("orders", "running").containsEntry("invoices", "running");
		});
	}

	@Test
	void downNamingTheQueueWhenAWorkerThreadDies() {
		this.contextRunner.run((context) -> {
			WorkQueuesHealthIndicator indicator = context.getBean(WorkQueuesHealthIndicator.class);
			context.getBean("orders", RateLimitingQueue.class).add(Workers.FATAL);
			// The dying thread's error is expected: Awaitility must not report it.
			await().dontCatchUncaughtExceptions()
				.atMost(Duration.ofSeconds(10))
				.until(() -> indicator.health().getStatus().equals(Status.DOWN));
			assertThat(indicator.health().getDetails())
				.containsEntry("orders", "worker workers#ship not running, 1 of 2 threads alive")
				.containsEntry("invoices", "running");
		});
	}

	@Test
	void downNamingTheQueueWhenAQueueIsShutDownWhileTheApplicationRuns() {
		this.contextRunner.run((context) -> {
			context.getBean("invoices", RateLimitingQueue.class).shutDown();
			Health health = context.getBean(WorkQueuesHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("orders", "running")
				.hasEntrySatisfying("invoices", (state) -> assertThat(state).asString().startsWith("shut down"));
		});
	}

	@Test
	void notDownWhileTheContextClosesNormally() {
		this.contextRunner.withBean(HealthProbe.class).run((context) -> {
			HealthProbe probe = context.getBean(HealthProbe.class);
			context.close();
			assertThat(probe.healthAfterWorkersStopped).isNotNull();
			assertThat(probe.healthAfterWorkersStopped.getStatus()).isEqualTo(Status.UP);
			assertThat(probe.healthAfterWorkersStopped.getDetails()).hasEntrySatisfying("orders",
					(state) -> assertThat(state).asString().startsWith("shut down"));
		});
	}

	@Test
	void backsOffWhenDisabled() {
		this.contextRunner.withPropertyValues("management.health.workqueues.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("workqueuesHealthIndicator"));
	}

	@Test
	void backsOffWithoutSpringBootHealth() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean("orders")
				.doesNotHaveBean("workqueuesHealthIndicator"));
	}

	@Test
	void backsOffWhenWorkQueuesAreDisabled() {
		this.contextRunner.withPropertyValues("workqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("workqueuesHealthIndicator"));
	}

	/**
	 * Reads the health while the context closes, once the workers have stopped and their
	 * queues are shut down, as a health request arriving during shutdown would.
	 */
	static class HealthProbe implements SmartLifecycle {

		private final WorkQueuesHealthIndicator indicator;

		private volatile boolean running;

		private volatile @Nullable Health healthAfterWorkersStopped;

		HealthProbe(WorkQueuesHealthIndicator indicator) {
			this.indicator = indicator;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.healthAfterWorkersStopped = this.indicator.health();
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return WorkerContainerRegistry.PHASE - 1;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WorkersConfiguration {

		@Bean
		Workers workers() {
			return new Workers();
		}

	}

	static class Workers {

		/** An item whose processing kills the worker thread, as no exception may. */
		static final String FATAL = "fatal";

		@QueueWorker(queue = "orders")
		void ship(String order) {
			if (FATAL.equals(order)) {
				throw new InternalError("test: a worker thread dies");
			}
		}

		@QueueWorker(queue = "invoices")
		void send(String invoice) {
		}

	}

}
