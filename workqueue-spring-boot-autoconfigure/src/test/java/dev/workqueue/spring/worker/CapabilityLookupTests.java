package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spi.Pollers;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.actuate.health.WorkQueuesHealthIndicator;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The capabilities the starter looks up behind a queue bean (the worker threads'
 * {@link PollerFactory}, the {@link SharedWorkQueue} that shutdown, metrics and health
 * use) are found through every wrapper the starter or an application puts around the
 * queue: core's rate-limiting wrapper, which the redis backend builds around its queue,
 * and an application's own decorator that passes {@code capability} on.
 */
class CapabilityLookupTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final SeamQueues.Record record = new SeamQueues.Record();

	private final RateLimitingQueue<Object> capable = SeamQueues.capable(
			WorkQueues.builder().name("orders").buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter()),
			this.record, SeamQueues.IdlePoller::new, true);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=2", "workqueue.queues.orders.poll-timeout=1h",
				"workqueue.queues.orders.shutdown-timeout=5s")
		.withBean(GatedWorker.class);

	static Stream<Arguments> wrappers() {
		UnaryOperator<RateLimitingQueue<Object>> rateLimiting = (queue) -> WorkQueues.rateLimiting(queue,
				RateLimiters.defaultControllerRateLimiter());
		UnaryOperator<RateLimitingQueue<Object>> decorator = SeamQueues::userDecorator;
		return Stream.of(Arguments.of("the queue itself", UnaryOperator.identity()),
				Arguments.of("core's rate-limiting wrapper", rateLimiting),
				Arguments.of("an application's decorator", decorator),
				Arguments.of("an application's decorator around core's rate-limiting wrapper",
						(UnaryOperator<RateLimitingQueue<Object>>) (queue) -> decorator
							.apply(rateLimiting.apply(queue))));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("wrappers")
	void eachCapabilityIsFoundThrough(String description, UnaryOperator<RateLimitingQueue<Object>> wrap) {
		RateLimitingQueue<Object> wrapped = wrap.apply(this.capable);
		assertThat(wrapped.capability(SharedWorkQueue.class)).containsSame((SharedWorkQueue) this.capable);
		assertThat(wrapped.capability(PollerFactory.class)).containsSame((PollerFactory<?>) this.capable);
		assertThat(Pollers.of(wrapped)).isSameAs(this.record.pollers.get(0));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("wrappers")
	void theWorkersAndTheHealthOfAQueueBeanUseTheCapabilitiesFoundThrough(String description,
			UnaryOperator<RateLimitingQueue<Object>> wrap) {
		this.contextRunner.withBean("orders", RateLimitingQueue.class, () -> wrap.apply(this.capable))
			.run((context) -> {
				WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
				await().atMost(TIMEOUT).until(() -> this.record.pollers.size() == 2);
				// The threads wait in polls of an hour that only their pollers' wake-ups
				// end: the pause holds at once only if each thread polls through one.
				workers.setPaused("orders", true);
				await().atMost(TIMEOUT).until(() -> everyThreadPaused());
				assertThat(this.record.pollers).allSatisfy((poller) -> {
					assertThat(poller.wakeups).hasPositiveValue();
					assertThat(poller.polls).hasPositiveValue();
				});
				WorkQueuesHealthIndicator health = new WorkQueuesHealthIndicator(
						context.getBean(WorkQueueRegistry.class), workers, () -> false);
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				this.record.reachable = false;
				Health down = health.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("orders", "unreachable");
			});
	}

	private static boolean everyThreadPaused() {
		List<Thread> threads = Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().matches("workqueue-orders-\\d+") && thread.isAlive())
			.toList();
		return threads.size() == 2 && threads.stream()
			.allMatch((thread) -> thread.getState() == Thread.State.WAITING && Arrays.stream(thread.getStackTrace())
				.anyMatch((frame) -> frame.getMethodName().equals("awaitTurn")));
	}

}
