package dev.workqueue.spring.autoconfigure;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.workqueue.ItemCodec;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.inspect.QueueInspector;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the memory backend gives its queues their {@code given-up} bound and their
 * codec bean. Disabled until core's in-memory {@link QueueInspector} and
 * {@code WorkQueues.Builder.givenUp/codec} are merged (issue 40), when
 * {@link MemoryBackend}'s {@code r40-core} lines are switched on.
 */
@Disabled("r40-core")
class MemoryQueueInspectionTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class));

	@Test
	void aMemoryQueueKeepsAtMostItsGivenUpKeep() {
		this.contextRunner
			.withPropertyValues("workqueue.defaults.given-up.keep=5", "workqueue.queues.orders.given-up.keep=1")
			.run((context) -> {
				QueueInspector inspector = inspector(context.getBean("orders", RateLimitingQueue.class));
				inspector.keepGivenUp("a", 3, "java.lang.IllegalStateException: a");
				inspector.keepGivenUp("b", 3, "java.lang.IllegalStateException: b");
				assertThat(inspector.givenUpCount()).isOne();
			});
	}

	@Test
	void aMemoryQueueReadsTextWithItsCodecBeanOnly() {
		this.contextRunner.withUserConfiguration(OrdersCodec.class)
			.withPropertyValues("workqueue.queues.orders.concurrency=1", "workqueue.queues.emails.concurrency=1")
			.run((context) -> {
				QueueInspector orders = inspector(context.getBean("orders", RateLimitingQueue.class));
				assertThat(orders.readsText()).isTrue();
				assertThat(orders.item("42")).contains(42);
				assertThat(inspector(context.getBean("emails", RateLimitingQueue.class)).readsText()).isFalse();
			});
	}

	private static QueueInspector inspector(RateLimitingQueue<?> queue) {
		return queue.capability(QueueInspector.class).orElseThrow();
	}

	@Configuration(proxyBeanMethods = false)
	static class OrdersCodec {

		@Bean
		ItemCodec<Integer> ordersItemCodec() {
			return new ItemCodec<>() {

				@Override
				public String encode(Integer item) {
					return item.toString();
				}

				@Override
				public Integer decode(String encoded) {
					return Integer.valueOf(encoded);
				}

			};
		}

	}

}
