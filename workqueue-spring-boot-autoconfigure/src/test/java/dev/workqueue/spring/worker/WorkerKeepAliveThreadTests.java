package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the non-daemon thread with which {@link WorkerContainerRegistry} keeps the
 * JVM running while its workers run; {@code WorkerKeepAliveTests} runs an application as
 * a process.
 */
class WorkerKeepAliveThreadTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=1");

	@Test
	void keepAliveRunsWhileTheWorkersRunAndEndsOnlyOnceTheyHaveDrained() {
		this.contextRunner.withBean(GatedWorker.class).run((context) -> {
			WorkerContainerRegistry registry = context.getBean(WorkerContainerRegistry.class);
			GatedWorker worker = context.getBean(GatedWorker.class);
			assertThat(registry.isKeepingAlive()).isTrue();
			assertThat(keepAliveThread()).isNotNull().satisfies((thread) -> assertThat(thread.isDaemon()).isFalse());
			@SuppressWarnings("unchecked")
			RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			orders.add("a");
			await().atMost(TIMEOUT).until(() -> worker.inFlight.get() == 1);
			CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
			await().atMost(TIMEOUT).until(orders::isShuttingDown);
			// Draining: the JVM must not be let go yet.
			assertThat(registry.isKeepingAlive()).isTrue();
			worker.openGate();
			closing.get(1, TimeUnit.SECONDS);
			await().atMost(TIMEOUT).until(() -> !registry.isKeepingAlive());
		});
	}

	@Test
	void keepAliveOffStartsNoThread() {
		this.contextRunner.withBean(GatedWorker.class)
			.withPropertyValues("workqueue.workers.keep-alive=false")
			.run((context) -> assertThat(context.getBean(WorkerContainerRegistry.class).isKeepingAlive()).isFalse());
	}

	@Test
	void anApplicationWithoutWorkersIsNotKeptAlive() {
		this.contextRunner
			.run((context) -> assertThat(context.getBean(WorkerContainerRegistry.class).isKeepingAlive()).isFalse());
	}

	private static Thread keepAliveThread() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals("workqueue-keep-alive"))
			.findFirst()
			.orElse(null);
	}

}
