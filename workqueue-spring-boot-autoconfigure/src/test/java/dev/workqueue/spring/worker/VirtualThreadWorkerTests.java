package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for worker threads with {@code spring.threads.virtual.enabled}. Needs Java 21;
 * {@code Thread.isVirtual()} is called reflectively as the tests compile for Java 17.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadWorkerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=2")
		.withBean(ThreadRecordingWorker.class);

	@Test
	void workersRunOnVirtualThreadsWhenEnabled() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			Set<Thread> threads = processTwoItems(context.getBean(WorkQueueRegistry.class),
					context.getBean(ThreadRecordingWorker.class));
			assertThat(threads).allSatisfy((thread) -> {
				assertThat(isVirtual(thread)).isTrue();
				assertThat(thread.getName()).matches("workqueue-orders-[12]");
			});
		});
	}

	@Test
	void workersRunOnPlatformDaemonThreadsByDefault() {
		this.contextRunner.run((context) -> {
			Set<Thread> threads = processTwoItems(context.getBean(WorkQueueRegistry.class),
					context.getBean(ThreadRecordingWorker.class));
			assertThat(threads).allSatisfy((thread) -> {
				assertThat(isVirtual(thread)).isFalse();
				assertThat(thread.isDaemon()).isTrue();
				assertThat(thread.getName()).matches("workqueue-orders-[12]");
			});
		});
	}

	private static Set<Thread> processTwoItems(WorkQueueRegistry queues, ThreadRecordingWorker worker) {
		queues.get("orders").add("a");
		queues.get("orders").add("b");
		await().atMost(Duration.ofSeconds(10)).until(() -> worker.items.size() == 2);
		return worker.threads;
	}

	private static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
		return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
	}

	static class ThreadRecordingWorker {

		final Set<Thread> threads = ConcurrentHashMap.newKeySet();

		final Set<String> items = ConcurrentHashMap.newKeySet();

		@QueueWorker(queue = "orders")
		void process(String item) {
			this.threads.add(Thread.currentThread());
			this.items.add(item);
		}

	}

}
