package dev.workqueue.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample in the {@code postgres} profile: a webhook's payload and its queued target
 * commit or roll back together. Each test runs in a schema of its own (the queue table,
 * the outbox), dropped after it. Needs the PostgreSQL on {@code 127.0.0.1:5432}, database
 * {@code test} (skipped loudly without it, failed when
 * {@code WORKQUEUE_POSTGRES_REQUIRED=true}).
 */
class PostgresIntakeTests {

	static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";

	private final String schema = "sample_" + UUID.randomUUID().toString().replace("-", "");

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private ConfigurableApplicationContext context;

	@BeforeAll
	static void postgresAnswers() {
		boolean answers;
		try (Connection connection = connect()) {
			answers = connection.isValid(2);
		}
		catch (SQLException ex) {
			answers = false;
		}
		if (!answers && "true".equalsIgnoreCase(System.getenv("WORKQUEUE_POSTGRES_REQUIRED"))) {
			throw new IllegalStateException("No PostgreSQL at " + URL + ", and the PostgreSQL tests are required");
		}
		if (!answers) {
			System.err.println("*** SKIPPING THE SAMPLE'S POSTGRES TESTS: no PostgreSQL at " + URL + " ***");
		}
		assumeThat(answers).as("PostgreSQL at " + URL).isTrue();
	}

	@BeforeEach
	void start() {
		execute("CREATE SCHEMA " + this.schema);
		this.context = new SpringApplicationBuilder(SampleApplication.class).profiles("postgres")
			.initializers((initializing) -> ((GenericApplicationContext) initializing)
				.registerBean(RecordingDownstream.class, (definition) -> definition.setPrimary(true)))
			.run("--server.port=0", "--spring.datasource.url=" + URL + "?currentSchema=" + this.schema,
					"--sample.downstream.failure-rate=0", "--sample.downstream.latency=1ms",
					"--sample.receipts.poll-interval=20ms");
	}

	@AfterEach
	void stopAndDropSchema() {
		if (this.context != null) {
			this.context.close();
		}
		execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
	}

	@Test
	void theQueuesAndTheOutboxAreInTheDatabase() {
		assertThat(this.context.getBean(Outbox.class)).isInstanceOf(PostgresOutbox.class);
		assertThat(count("SELECT count(*) FROM pg_tables WHERE schemaname = '" + this.schema + "'"))
			.as("webhook_payload, workqueue_item, workqueue_item_lease, workqueue_item_limit, workqueue_item_given_up")
			.isEqualTo(5);
	}

	@Test
	void aRolledBackIntakeLeavesNoQueuedTargetAndNoPayload() throws Exception {
		WorkerContainerRegistry workers = this.context.getBean(WorkerContainerRegistry.class);
		workers.setPaused(WebhookWorkers.DELIVERIES, true);
		WebhookIntake intake = this.context.getBean(WebhookIntake.class);
		TransactionTemplate transaction = this.context.getBean(TransactionTemplate.class);
		transaction.executeWithoutResult((status) -> {
			intake.accept("rolled-back-shop", "order 1 shipped", 0);
			// The intake joined this transaction: nothing of it is visible outside yet.
			assertThat(queuedTargets()).isEmpty();
			status.setRollbackOnly();
		});
		HttpResponse<String> accepted = post("{\"targetId\":\"shop-1\",\"payload\":\"order 2 shipped\"}");
		assertThat(accepted.statusCode()).isEqualTo(202);

		assertThat(queuedTargets()).containsExactly("shop-1");
		assertThat(payloads()).containsExactly("order 2 shipped");
		workers.setPaused(WebhookWorkers.DELIVERIES, false);
		RecordingDownstream downstream = this.context.getBean(RecordingDownstream.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> downstream.delivered.contains("order 2 shipped"));
		await().atMost(Duration.ofSeconds(10)).until(() -> queuedTargets().isEmpty() && payloads().isEmpty());
		assertThat(downstream.delivered).containsExactly("order 2 shipped");
		assertThat(deliveries().size()).isZero();
	}

	@Test
	void anIntakeThatFailsAfterItsAddLeavesNothingQueued() {
		WebhookIntake intake = this.context.getBean(WebhookIntake.class);
		TransactionTemplate transaction = this.context.getBean(TransactionTemplate.class);
		assertThat(catchThrowable(() -> transaction.executeWithoutResult((status) -> {
			intake.accept("failing-shop", "order 3 shipped", 0);
			throw new IllegalStateException("the request fails after the intake");
		}))).hasMessage("the request fails after the intake");
		assertThat(queuedTargets()).isEmpty();
		assertThat(payloads()).isEmpty();
	}

	private RateLimitingQueue<String> deliveries() {
		return this.context.getBean(WorkQueueRegistry.class).get(WebhookWorkers.DELIVERIES);
	}

	private HttpResponse<String> post(String body) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri("/webhooks"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** The targets queued for delivery, as a worker's statement would see them. */
	private List<String> queuedTargets() {
		return jdbc().sql("SELECT item FROM " + this.schema + ".workqueue_item WHERE queue = 'deliveries'")
			.query(String.class)
			.list();
	}

	private List<String> payloads() {
		return jdbc().sql("SELECT payload FROM " + this.schema + ".webhook_payload ORDER BY id")
			.query(String.class)
			.list();
	}

	/** Reads on a connection of its own, outside any transaction of the application. */
	private JdbcClient jdbc() {
		return JdbcClient.create(new DriverManagerDataSource(URL, "postgres", ""));
	}

	private long count(String sql) {
		return jdbc().sql(sql).query(Long.class).single();
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.context.getEnvironment().getProperty("local.server.port") + path);
	}

	static void execute(String sql) {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot run: " + sql, ex);
		}
	}

	private static Connection connect() throws SQLException {
		return DriverManager.getConnection(URL, "postgres", null);
	}

	/**
	 * The simulated receiver, remembering every payload it accepted.
	 */
	static class RecordingDownstream extends Downstream {

		final Queue<String> delivered = new ConcurrentLinkedQueue<>();

		RecordingDownstream(DownstreamProperties properties) {
			super(properties);
		}

		@Override
		public void deliver(String targetId, List<String> payloads) throws InterruptedException {
			super.deliver(targetId, payloads);
			this.delivered.addAll(payloads);
		}

	}

}
