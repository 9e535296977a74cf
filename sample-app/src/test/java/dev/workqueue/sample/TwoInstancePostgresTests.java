package dev.workqueue.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.stream.IntStream;

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

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the sample in the {@code postgres} profile, sharing the queues and the
 * outbox in one schema of their own: a burst posted to one is delivered exactly once
 * across both, whichever takes each target. The first instance's delivery workers are
 * paused while the burst is posted, so the second one delivers payloads it did not stage.
 * One delivery attempt in five fails and is retried. Needs the PostgreSQL on
 * {@code 127.0.0.1:5432}, database {@code test} (skipped loudly without it, failed when
 * {@code WORKQUEUE_POSTGRES_REQUIRED=true}).
 */
class TwoInstancePostgresTests {

	private static final int PAYLOADS = 500;

	private static final int TARGETS = 20;

	private final String schema = "sample_" + UUID.randomUUID().toString().replace("-", "");

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@BeforeAll
	static void postgresAnswers() {
		PostgresIntakeTests.postgresAnswers();
	}

	@BeforeEach
	void createSchema() {
		PostgresIntakeTests.execute("CREATE SCHEMA " + this.schema);
	}

	@AfterEach
	void stopAndDropSchema() {
		this.instances.forEach(ConfigurableApplicationContext::close);
		PostgresIntakeTests.execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
	}

	@Test
	void aBurstPostedToOneInstanceIsDeliveredExactlyOnceAcrossBoth() throws Exception {
		ConfigurableApplicationContext first = start();
		ConfigurableApplicationContext second = start();
		WorkerContainerRegistry firstWorkers = first.getBean(WorkerContainerRegistry.class);
		firstWorkers.setPaused(WebhookWorkers.DELIVERIES, true);

		HttpResponse<String> accepted = this.http
			.send(HttpRequest.newBuilder(uri(first, "/webhooks/burst?count=" + PAYLOADS + "&targets=" + TARGETS))
				.POST(HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(accepted.statusCode()).isEqualTo(202);
		await().atMost(Duration.ofSeconds(30)).until(() -> totals(second).payloads() > 0);
		firstWorkers.setPaused(WebhookWorkers.DELIVERIES, false);

		await().atMost(Duration.ofSeconds(60))
			.until(() -> totals(first).payloads() + totals(second).payloads() >= PAYLOADS);
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(5))
			.until(() -> totals(first).payloads() + totals(second).payloads() == PAYLOADS);
		List<String> delivered = new ArrayList<>(delivered(first));
		delivered.addAll(delivered(second));
		assertThat(delivered).containsExactlyInAnyOrderElementsOf(
				IntStream.range(0, PAYLOADS).mapToObj((i) -> "burst payload " + i).toList());
		assertThat(delivered(second)).as("delivered by the instance that did not stage them").isNotEmpty();
		assertThat(totals(first).deadLetters() + totals(second).deadLetters()).isZero();
		assertThat(JdbcClient.create(new DriverManagerDataSource(PostgresIntakeTests.URL, "postgres", ""))
			.sql("SELECT count(*) FROM " + this.schema + ".webhook_payload")
			.query(Long.class)
			.single()).as("payloads left in the outbox").isZero();
	}

	private ConfigurableApplicationContext start() {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.profiles("postgres")
			.initializers((initializing) -> ((GenericApplicationContext) initializing).registerBean(
					PostgresIntakeTests.RecordingDownstream.class, (definition) -> definition.setPrimary(true)))
			.run("--server.port=0",
					"--spring.datasource.url=" + PostgresIntakeTests.URL + "?currentSchema=" + this.schema,
					"--sample.downstream.failure-rate=0.2", "--sample.downstream.latency=1ms",
					"--sample.receipts.poll-interval=20ms", "--workqueue.queues.deliveries.max-retries=-1",
					"--workqueue.queues.deliveries.rate-limiter.exponential.base-delay=1ms",
					"--workqueue.queues.deliveries.rate-limiter.exponential.max-delay=20ms",
					"--workqueue.queues.deliveries.rate-limiter.bucket.qps=1000",
					"--workqueue.queues.deliveries.rate-limiter.bucket.burst=1000",
					"--workqueue.queues.deliveries.rate-limiter.item-bucket.qps=1000",
					"--workqueue.queues.deliveries.rate-limiter.item-bucket.burst=1000");
		this.instances.add(context);
		assertThat(context.getBean(Outbox.class)).isInstanceOf(PostgresOutbox.class);
		return context;
	}

	private static DeliveryTotals totals(ConfigurableApplicationContext instance) {
		return instance.getBean(DeliveryLedger.class).totals();
	}

	private static Queue<String> delivered(ConfigurableApplicationContext instance) {
		return instance.getBean(PostgresIntakeTests.RecordingDownstream.class).delivered;
	}

	private static URI uri(ConfigurableApplicationContext instance, String path) {
		return URI.create("http://127.0.0.1:" + instance.getEnvironment().getProperty("local.server.port") + path);
	}

}
