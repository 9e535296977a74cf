package dev.workqueue.console;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import dev.workqueue.WorkQueues;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spring.QueueWorker;

/**
 * The application of the console's tests: {@code orders}, a queue that can be looked into
 * and reads text; {@code opaque}, one of an application's own backend that can be looked
 * into and reads no text; and {@code plain}, a queue the starter builds from
 * {@code workqueue.queues.plain} (give it in the test's properties), served by two worker
 * threads.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ConsoleTestApplication {

	static final String SCRIPT = "<script>alert(1)</script>";

	@Bean
	InspectedQueue orders() {
		return new InspectedQueue("orders", true).put("order-1", ItemState.READY)
			.put("order-2", ItemState.READY)
			.put("order-3", ItemState.READY)
			.put("order-4", ItemState.READY)
			.put(SCRIPT, ItemState.READY)
			.put("order-9", ItemState.PROCESSING)
			.put("order-7", ItemState.WAITING)
			.put("order-5", ItemState.GIVEN_UP)
			.put("order-6", ItemState.GIVEN_UP);
	}

	@Bean
	InspectedQueue opaque() {
		return new InspectedQueue("opaque", false).backend("custom").put("secret-1", ItemState.GIVEN_UP);
	}

	@Bean
	UninspectedQueue<Object> plain() {
		return new UninspectedQueue<>(
				WorkQueues.builder().name("plain").buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter()));
	}

	@Bean
	PlainWorker plainWorker() {
		return new PlainWorker();
	}

	static class PlainWorker {

		@QueueWorker(queue = "plain", concurrency = "2")
		void work(String item) {
		}

	}

}
