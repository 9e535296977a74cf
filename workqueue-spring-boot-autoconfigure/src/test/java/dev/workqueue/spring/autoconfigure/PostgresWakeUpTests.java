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

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How a waiting worker hears of an item another instance added: through {@code LISTEN} on
 * the connection the starter opens from Boot's connection details (the poll interval is
 * far longer than the wait allowed), or, with {@code workqueue.postgres.listen=false}, by
 * polling. Two application contexts sharing one table play two instances. Needs the
 * {@link LocalPostgres}.
 */
class PostgresWakeUpTests {

	/** The application name workqueue-postgres gives its LISTEN connection. */
	private static final String LISTENER = "workqueue-postgres-listener";

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
			// One LISTEN connection per application, whatever the number of its queues.
			await().atMost(Duration.ofSeconds(5)).until(() -> listeningConnections() == 1);
			instances.run((producer) -> addedByOneHeardByTheOther(producer, consumer));
		});
	}

	@Test
	void withoutListenAWaitingWorkerFindsAnotherInstancesAddByPolling() {
		ApplicationContextRunner instances = this.contextRunner.withPropertyValues("workqueue.postgres.listen=false",
				"workqueue.postgres.poll-interval=100ms");
		instances.withBean(RecordingWorker.class).run((consumer) -> instances.run((producer) -> {
			addedByOneHeardByTheOther(producer, consumer);
			assertThat(listeningConnections()).as("LISTEN connections").isZero();
		}));
	}

	private static void addedByOneHeardByTheOther(ApplicationContext producer, ApplicationContext consumer) {
		RecordingWorker worker = consumer.getBean(RecordingWorker.class);
		producer.getBean(WorkQueueRegistry.class).get("orders").add("a");
		await().atMost(Duration.ofSeconds(5)).until(() -> worker.items.contains("a"));
	}

	/**
	 * Counts the server's connections listening for this test's table: the workqueue
	 * listener's connections whose last statement named the table's channel (other tests'
	 * listeners have tables of their own).
	 */
	private long listeningConnections() {
		return LocalPostgres.count("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + LISTENER
				+ "' AND query ILIKE 'LISTEN %" + this.table + "%'");
	}

	static class RecordingWorker {

		final List<String> items = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		public void process(String item) {
			this.items.add(item);
		}

	}

}
