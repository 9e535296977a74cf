package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueRegistry;

import static org.awaitility.Awaitility.await;

/**
 * How a waiting worker hears of an item another instance added: through {@code LISTEN} on
 * the connection the starter opens from Boot's connection details (the poll interval is
 * far longer than the wait allowed), or, with {@code workqueue.postgres.listen=false}, by
 * polling. Two application contexts sharing one table play two instances. Needs the
 * {@link LocalPostgres}.
 */
class PostgresWakeUpTests {

	private static final String LISTENER_THREAD = "workqueue-postgres-listener";

	private final String table = LocalPostgres.uniqueTable();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, WorkQueueAutoConfiguration.class))
		.withPropertyValues(LocalPostgres.dataSourceProperties())
		.withPropertyValues("workqueue.postgres.table=" + this.table, "workqueue.queues.orders.backend=postgres");

	@BeforeAll
	static void postgresAnswers() {
		LocalPostgres.assumeAnswers();
	}

	@AfterEach
	void dropTable() {
		LocalPostgres.dropTable(this.table);
	}

	@Test
	void aWaitingWorkerHearsOfAnotherInstancesAddThroughListen() {
		ApplicationContextRunner instances = this.contextRunner
			.withPropertyValues("workqueue.postgres.poll-interval=1m", "workqueue.queues.emails.backend=postgres");
		instances.withBean(RecordingWorker.class).run((consumer) -> {
			// One LISTEN connection (and its thread) per application, whatever the
			// number of its queues.
			await().atMost(Duration.ofSeconds(5)).until(() -> listenerThreads() == 1);
			instances.run((producer) -> addedByOneHeardByTheOther(producer, consumer));
		});
	}

	@Test
	void withoutListenAWaitingWorkerFindsAnotherInstancesAddByPolling() {
		ApplicationContextRunner instances = this.contextRunner.withPropertyValues("workqueue.postgres.listen=false",
				"workqueue.postgres.poll-interval=100ms");
		instances.withBean(RecordingWorker.class).run((consumer) -> instances.run((producer) -> {
			addedByOneHeardByTheOther(producer, consumer);
			// No LISTEN connection at all (a listener of an earlier test may still be
			// closing).
			await().atMost(Duration.ofSeconds(5)).until(() -> listenerThreads() == 0);
		}));
	}

	private static void addedByOneHeardByTheOther(ApplicationContext producer, ApplicationContext consumer) {
		RecordingWorker worker = consumer.getBean(RecordingWorker.class);
		producer.getBean(WorkQueueRegistry.class).get("orders").add("a");
		await().atMost(Duration.ofSeconds(5)).until(() -> worker.items.contains("a"));
	}

	private static long listenerThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(LISTENER_THREAD))
			.count();
	}

	static class RecordingWorker {

		final List<String> items = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		public void process(String item) {
			this.items.add(item);
		}

	}

}
