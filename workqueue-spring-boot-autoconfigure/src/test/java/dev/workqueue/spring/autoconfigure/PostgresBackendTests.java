package dev.workqueue.spring.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.annotation.Transactional;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.postgres.PostgresWorkQueues;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.spring.PostgresWorkQueueCustomizer;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint;
import dev.workqueue.spring.actuate.health.WorkQueuesHealthIndicator;
import dev.workqueue.spring.autoconfigure.endpoint.WorkQueuesEndpointAutoConfiguration;
import dev.workqueue.spring.autoconfigure.health.WorkQueuesHealthContributorAutoConfiguration;
import dev.workqueue.spring.autoconfigure.metrics.WorkQueueMetricsAutoConfiguration;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Queues whose {@code backend} is {@code postgres}: built on the application's
 * {@code DataSource}, in its transactions, served by the same workers, with shared rate
 * limiters, the same meters, endpoint fields and health. Needs the {@link LocalPostgres};
 * each test has a table of its own.
 */
@ExtendWith(OutputCaptureExtension.class)
class PostgresBackendTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final String table = LocalPostgres.uniqueTable();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
				WorkQueueAutoConfiguration.class))
		.withPropertyValues(LocalPostgres.dataSourceProperties())
		.withPropertyValues("workqueue.postgres.table=" + this.table, "workqueue.queues.orders.backend=postgres",
				"workqueue.queues.orders.rate-limiter.exponential.base-delay=1ms",
				"workqueue.queues.orders.rate-limiter.exponential.max-delay=10ms",
				"workqueue.queues.local.concurrency=1");

	@BeforeAll
	static void postgresAnswers() {
		LocalPostgres.assumeAnswers();
	}

	@AfterEach
	void dropTable() {
		LocalPostgres.dropTable(this.table);
	}

	@Test
	void withInitializeSchemaAlwaysThePostgresQueueStartsAndIsServedByItsWorkers() {
		this.contextRunner.withBean(FlakyWorker.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(LocalPostgres.exists(this.table)).isTrue();
			RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			assertThat(orders.name()).isEqualTo("orders");
			assertThat(orders.capability(SharedWorkQueue.class)).isPresent();
			assertThat(context.getBean("local", RateLimitingQueue.class).capability(SharedWorkQueue.class)).isEmpty();
			orders.add("a");
			orders.add("b");
			FlakyWorker worker = context.getBean(FlakyWorker.class);
			await().atMost(TIMEOUT).until(() -> worker.succeeded.containsAll(List.of("a", "b")));
			assertThat(worker.calls).filteredOn("a"::equals).hasSize(2);
			assertThat(context.getBean(WorkQueueDetails.class).backend("orders")).isEqualTo("postgres");
			assertThat(context.getBean(WorkQueueDetails.class).backend("local")).isEqualTo("memory");
			await().atMost(TIMEOUT)
				.until(() -> LocalPostgres
					.count("SELECT count(*) FROM " + this.table + " WHERE queue = 'orders'") == 0);
		});
	}

	@Test
	void theClockBeanTimesTheMemoryQueuesOnlyAndThePostgresQueueKeepsTheDatabasesClock() {
		this.contextRunner.withUserConfiguration(WorkQueueAutoConfigurationTests.FakeClockConfiguration.class)
			.run((context) -> {
				FakeClock clock = context.getBean(FakeClock.class);
				RateLimitingQueue<String> local = context.getBean(WorkQueueRegistry.class).get("local");
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				local.addAfter("memory", Duration.ofHours(1));
				orders.addAfter("postgres", Duration.ofHours(1));
				clock.step(Duration.ofHours(2));
				assertThat(local.poll(Duration.ZERO)).isEqualTo("memory");
				assertThat(orders.poll(Duration.ZERO)).as("an hour on the database's clock").isNull();
				assertThat(clockKind()).isEqualTo("database");
			});
	}

	@Test
	void aCustomizerGivesAPostgresQueueItsClock() {
		FakeClock clock = new FakeClock();
		this.contextRunner.withBean(PostgresWorkQueueCustomizer.class, () -> (name, builder) -> builder.clock(clock))
			.run((context) -> {
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.addAfter("postgres", Duration.ofHours(1));
				assertThat(orders.poll(Duration.ZERO)).isNull();
				clock.step(Duration.ofHours(1));
				assertThat(orders.poll(Duration.ZERO)).isEqualTo("postgres");
				orders.done("postgres");
				assertThat(clockKind()).isEqualTo("given");
			});
	}

	/** The kind of clock the queue's mark keeps with its data. */
	private String clockKind() {
		for (String kind : new String[] { "database", "given" }) {
			if (LocalPostgres.count("SELECT count(*) FROM " + this.table + "_limit WHERE queue = 'orders'"
					+ " AND kind = 'mark' AND holder = '" + kind + "'") == 1) {
				return kind;
			}
		}
		return null;
	}

	@Test
	void aTransactionalAddRolledBackIsNeverHandedOutAndACommittedOneIsProcessed() {
		this.contextRunner.withBean(RecordingWorker.class).withBean(Intake.class).run((context) -> {
			Intake intake = context.getBean(Intake.class);
			RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			assertThatIllegalStateException().isThrownBy(() -> intake.addThenFail("rolled-back", orders))
				.withMessage("the business write fails after the add");
			assertThat(intake.visibleInside()).as("the add, seen from outside its open transaction")
				.containsExactly(0L);
			intake.add("committed", orders);
			RecordingWorker worker = context.getBean(RecordingWorker.class);
			await().atMost(TIMEOUT).until(() -> worker.items.contains("committed"));
			assertThat(worker.items).containsExactly("committed");
			assertThat(LocalPostgres.count("SELECT count(*) FROM " + this.table + " WHERE item = 'rolled-back'"))
				.isZero();
		});
	}

	@Test
	void postgresCustomizersAreCalledInOrderForEveryPostgresQueueOnly() {
		List<String> calls = new CopyOnWriteArrayList<>();
		this.contextRunner.withPropertyValues("workqueue.queues.emails.backend=postgres")
			.withBean("second", PostgresWorkQueueCustomizer.class, () -> new OrderedCustomizer(2, "second", calls))
			.withBean("first", PostgresWorkQueueCustomizer.class, () -> new OrderedCustomizer(1, "first", calls))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(calls).containsExactlyInAnyOrder("first:orders", "second:orders", "first:emails",
						"second:emails");
				assertThat(calls.indexOf("first:orders")).isLessThan(calls.indexOf("second:orders"));
				assertThat(calls.indexOf("first:emails")).isLessThan(calls.indexOf("second:emails"));
			});
	}

	@Test
	void aPriorityPostgresQueueIsAPriorityQueueBean() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.priority.enabled=true").run((context) -> {
			assertThat(context.getBean("orders")).isInstanceOf(PriorityQueue.class);
			@SuppressWarnings("unchecked")
			PriorityQueue<String> orders = context.getBean("orders", PriorityQueue.class);
			orders.add("low", 1);
			orders.add("high", 5);
			assertThat(orders.getWithPriority()).isEqualTo(new PriorityQueue.Prioritized<>("high", 5));
			orders.done("high");
		});
	}

	@Test
	void aPostgresQueueHasTheMetersAndEndpointFieldsOfTheOtherBackends() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(WorkQueueMetricsAutoConfiguration.class,
					WorkQueuesEndpointAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withBean(FlakyWorker.class)
			.withPropertyValues("workqueue.queues.orders.latency-timers=false",
					"management.endpoints.web.exposure.include=workqueues")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				RateLimitingQueue<String> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.add("a");
				orders.add("b");
				FlakyWorker worker = context.getBean(FlakyWorker.class);
				await().atMost(TIMEOUT).until(() -> worker.succeeded.containsAll(List.of("a", "b")));
				assertThat(registry.get("workqueue.adds").tag("name", "orders").counter().count()).isEqualTo(2);
				assertThat(registry.get("workqueue.retries").tag("name", "orders").counter().count()).isOne();
				assertThat(registry.find("workqueue.depth").tag("name", "orders").gauge()).isNotNull();
				assertThat(registry.find("workqueue.delayed.items").tag("name", "orders").gauge()).isNotNull();
				assertThat(registry.find("workqueue.work.duration").tag("name", "orders").meters()).isEmpty();
				WorkQueuesEndpoint.WorkQueueDescriptor descriptor = context.getBean(WorkQueuesEndpoint.class)
					.queue("orders");
				assertThat(descriptor.name()).isEqualTo("orders");
				assertThat(descriptor.backend()).isEqualTo("postgres");
				assertThat(descriptor.concurrency()).isOne();
				assertThat(descriptor.retries()).isOne();
				assertThat(descriptor.depth()).isZero();
				assertThat(descriptor.waiting()).isZero();
			});
	}

	@Test
	void healthIsUpWhileTheDatabaseAnswers() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(WorkQueuesHealthContributorAutoConfiguration.class))
			.run((context) -> {
				Health health = context.getBean(WorkQueuesHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("orders", "running");
			});
	}

	@Test
	void healthIsDownWhileTheDataSourceCannotReachTheDatabase() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(WorkQueuesHealthContributorAutoConfiguration.class))
			.withPropertyValues(
					"spring.datasource.url=jdbc:postgresql://127.0.0.1:" + LocalPostgres.deadPort() + "/test",
					"spring.datasource.hikari.connection-timeout=250", "workqueue.postgres.initialize-schema=never")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Health health = context.getBean(WorkQueuesHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsEntry("local", "running");
				assertThat((String) health.getDetails().get("orders")).startsWith("unreachable");
			});
	}

	@Test
	void endpointDescribesAQueueWhoseDatabaseCannotBeReachedWithTheReason(CapturedOutput output) {
		this.contextRunner.withConfiguration(AutoConfigurations.of(WorkQueuesEndpointAutoConfiguration.class))
			.withPropertyValues(
					"spring.datasource.url=jdbc:postgresql://127.0.0.1:" + LocalPostgres.deadPort() + "/test",
					"spring.datasource.hikari.connection-timeout=250", "workqueue.postgres.initialize-schema=never",
					"management.endpoints.web.exposure.include=workqueues")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				WorkQueuesEndpoint endpoint = context.getBean(WorkQueuesEndpoint.class);
				assertThat(endpoint.queues().queues()).extracting(WorkQueuesEndpoint.WorkQueueDescriptor::name)
					.containsExactly("local", "orders");
				WorkQueuesEndpoint.WorkQueueDescriptor orders = endpoint.queue("orders");
				assertThat(orders.backend()).isEqualTo("postgres");
				assertThat(orders.error()).startsWith("cannot read the queue: ");
				assertThat(orders.depth()).isNull();
				assertThat(endpoint.queue("local").depth()).isZero();
				assertThat(endpoint.queue("local").error()).isNull();
				assertThat(output).doesNotContain("ERROR");
			});
	}

	@Test
	void healthIsDownWhileTheDatabaseCannotBeReachedAndUpOnceItCanAgain() {
		SwitchableDataSource dataSource = new SwitchableDataSource(LocalPostgres.URL, LocalPostgres.USER);
		this.contextRunner.withConfiguration(AutoConfigurations.of(WorkQueuesHealthContributorAutoConfiguration.class))
			.withBean(DataSource.class, () -> dataSource)
			.withBean(RecordingWorker.class)
			.run((context) -> {
				WorkQueuesHealthIndicator health = context.getBean(WorkQueuesHealthIndicator.class);
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				dataSource.reachable = false;
				await().atMost(TIMEOUT).until(() -> health.health().getStatus().equals(Status.DOWN));
				assertThat((String) health.health().getDetails().get("orders")).startsWith("unreachable");
				dataSource.reachable = true;
				await().atMost(TIMEOUT).until(() -> health.health().getStatus().equals(Status.UP));
				context.getBean(WorkQueueRegistry.class).get("orders").add("after the outage");
				RecordingWorker worker = context.getBean(RecordingWorker.class);
				await().atMost(TIMEOUT).until(() -> worker.items.contains("after the outage"));
			});
		dataSource.close();
	}

	@Test
	void queuesAreShutDownBeforeTheDataSourceCloses() {
		AtomicReference<RateLimitingQueue<String>> orders = new AtomicReference<>();
		List<Boolean> shutDownWhenTheDataSourceClosed = new CopyOnWriteArrayList<>();
		HikariDataSource dataSource = new HikariDataSource() {

			@Override
			public void close() {
				shutDownWhenTheDataSourceClosed.add(orders.get().isShuttingDown());
				super.close();
			}

		};
		dataSource.setJdbcUrl(LocalPostgres.URL);
		dataSource.setUsername(LocalPostgres.USER);
		dataSource.setMaximumPoolSize(4);
		// The application's own DataSource: no connection details, so the queues listen
		// on a connection of it.
		this.contextRunner.withBean(DataSource.class, () -> dataSource).run((context) -> {
			orders.set(context.getBean(WorkQueueRegistry.class).get("orders"));
			orders.get().add("a");
			assertThat(orders.get().size()).isOne();
		});
		assertThat(shutDownWhenTheDataSourceClosed).isNotEmpty().containsOnly(true);
	}

	/**
	 * A pool whose database can be made unreachable: while it is, every connection it
	 * hands out fails as a refused connection would.
	 */
	static class SwitchableDataSource extends DelegatingDataSource {

		volatile boolean reachable = true;

		private final HikariDataSource pool = new HikariDataSource();

		SwitchableDataSource(String url, String user) {
			this.pool.setJdbcUrl(url);
			this.pool.setUsername(user);
			this.pool.setMaximumPoolSize(6);
			setTargetDataSource(this.pool);
		}

		@Override
		public Connection getConnection() throws SQLException {
			if (!this.reachable) {
				throw new SQLException("Connection refused (test)", "08001");
			}
			return super.getConnection();
		}

		void close() {
			this.pool.close();
		}

	}

	static class FlakyWorker {

		final List<String> calls = new CopyOnWriteArrayList<>();

		final List<String> succeeded = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		public void process(String item) {
			this.calls.add(item);
			if (item.equals("a") && this.calls.stream().filter("a"::equals).count() == 1) {
				throw new IllegalStateException("first try of a fails");
			}
			this.succeeded.add(item);
		}

	}

	static class RecordingWorker {

		final List<String> items = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		public void process(String item) {
			this.items.add(item);
		}

	}

	/**
	 * Adds inside transactions Spring opens, as an application's service does. Read
	 * through methods: the bean is a class-based proxy.
	 */
	static class Intake {

		private final List<Long> visibleInside = new CopyOnWriteArrayList<>();

		private final String table;

		Intake(WorkQueueProperties properties) {
			this.table = properties.getPostgres().getTable();
		}

		@Transactional
		public void addThenFail(String item, RateLimitingQueue<String> queue) {
			queue.add(item);
			this.visibleInside
				.add(LocalPostgres.count("SELECT count(*) FROM " + this.table + " WHERE item = '" + item + "'"));
			throw new IllegalStateException("the business write fails after the add");
		}

		@Transactional
		public void add(String item, RateLimitingQueue<String> queue) {
			queue.add(item);
		}

		public List<Long> visibleInside() {
			return this.visibleInside;
		}

	}

	/** Records its calls as {@code label:queue}. */
	record OrderedCustomizer(int order, String label,
			List<String> calls) implements PostgresWorkQueueCustomizer, Ordered {

		@Override
		public void customize(String queueName, PostgresWorkQueues.Builder<Object> builder) {
			assertThat(builder).isNotNull();
			this.calls.add(this.label + ":" + queueName);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

}
