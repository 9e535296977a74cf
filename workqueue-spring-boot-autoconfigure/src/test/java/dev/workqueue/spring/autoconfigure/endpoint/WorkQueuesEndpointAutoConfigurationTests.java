package dev.workqueue.spring.autoconfigure.endpoint;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint.WorkQueueDescriptor;
import dev.workqueue.spring.autoconfigure.WorkQueueDetails;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link WorkQueuesEndpointAutoConfiguration}.
 */
class WorkQueuesEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(WorkQueueAutoConfiguration.class, WorkQueuesEndpointAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=2",
				"workqueue.queues.invoices.rate-limiter.bucket.qps=5",
				"management.endpoints.web.exposure.include=workqueues");

	@Test
	void endpointDescribesTheQueuesWithTheirWorkersAndRateLimiters() {
		this.contextRunner.withUserConfiguration(OrdersWorkerConfiguration.class).run((context) -> {
			WorkQueuesEndpoint endpoint = context.getBean(WorkQueuesEndpoint.class);
			WorkQueueDetails registry = context.getBean(WorkQueueDetails.class);
			assertThat(endpoint.queues().queues()).extracting(WorkQueueDescriptor::name)
				.containsExactly("invoices", "orders");
			await().atMost(Duration.ofSeconds(10)).until(() -> endpoint.queue("orders").workersAlive() == 2);
			WorkQueueDescriptor orders = endpoint.queue("orders");
			assertThat(orders.concurrency()).isEqualTo(2);
			assertThat(orders.workers()).singleElement().satisfies((worker) -> {
				assertThat(worker.worker()).isEqualTo("ordersWorker#ship");
				assertThat(worker.running()).isTrue();
			});
			assertThat(orders.rateLimiter()).isEqualTo(registry.rateLimiter("orders").orElseThrow().toString());
			WorkQueueDescriptor invoices = endpoint.queue("invoices");
			assertThat(invoices.concurrency()).isZero();
			assertThat(invoices.rateLimiter()).isEqualTo(registry.rateLimiter("invoices").orElseThrow().toString())
				.contains("5");
			assertThat(endpoint.queue("nope")).isNull();
		});
	}

	@Test
	void queueBeanOfTheApplicationIsDescribedWithoutRateLimiter() {
		this.contextRunner
			.withBean("emails", RateLimitingQueue.class,
					() -> WorkQueues.builder().buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter()))
			.run((context) -> {
				WorkQueueDescriptor emails = context.getBean(WorkQueuesEndpoint.class).queue("emails");
				assertThat(emails).isNotNull();
				assertThat(emails.rateLimiter()).isNull();
			});
	}

	@Test
	void backsOffWhenTheEndpointIsNotExposed() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(WorkQueuesEndpoint.class));
	}

	@Test
	void backsOffWhenTheEndpointIsNotAccessible() {
		this.contextRunner.withPropertyValues("management.endpoint.workqueues.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(WorkQueuesEndpoint.class));
	}

	@Test
	void backsOffWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean("orders")
				.doesNotHaveBean(WorkQueuesEndpoint.class));
	}

	@Test
	void backsOffWhenWorkQueuesAreDisabled() {
		this.contextRunner.withPropertyValues("workqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(WorkQueuesEndpoint.class));
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
