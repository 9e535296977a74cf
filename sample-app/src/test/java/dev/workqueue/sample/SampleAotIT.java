package dev.workqueue.sample;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged sample, AOT-processed at build time, run as a user would:
 * {@code java -Dspring.aot.enabled=true -jar target/sample-app-<version>.jar}. Checks
 * that the workers are found and invoked, that the properties are bound at start-up (one
 * is given on the command line), and that the meters and the endpoint are there.
 */
@EnabledIfSystemProperty(named = "sample.jar", matches = ".+",
		disabledReason = "run by failsafe, which sets sample.jar, once the jar is packaged; "
				+ "a -Dtest filter makes surefire pick it up before")
class SampleAotIT {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private Process process;

	private Path output;

	private int port;

	@BeforeEach
	void start() throws IOException {
		String jar = System.getProperty("sample.jar");
		assertThat(jar).as("the sample.jar system property, set by the build").isNotNull();
		assertThat(new File(jar)).as("the repackaged sample").isFile();
		this.port = freePort();
		this.output = Files.createTempFile("sample-aot", ".log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		this.process = new ProcessBuilder(
				List.of(java, "-Dspring.aot.enabled=true", "-jar", jar, "--server.port=" + this.port,
						"--workqueue.queues.deliveries.concurrency=3", "--sample.downstream.failure-rate=0",
						"--sample.downstream.latency=0ms", "--sample.receipts.poll-interval=20ms"))
			.redirectErrorStream(true)
			.redirectOutput(this.output.toFile())
			.start();
	}

	@AfterEach
	void stop() throws Exception {
		this.process.destroy();
		if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
		}
		Files.deleteIfExists(this.output);
	}

	@Test
	void theAotProcessedJarRunsWorkersBindsPropertiesAndReports() throws Exception {
		await().atMost(Duration.ofSeconds(90))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> healthy() || !this.process.isAlive());
		assertThat(this.process.isAlive()).as("the sample started; its output:%n%s", log()).isTrue();
		assertThat(log()).contains("Starting AOT-processed SampleApplication");

		HttpResponse<String> accepted = this.http.send(HttpRequest.newBuilder(uri("/webhooks"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"targetId\":\"shop-1\",\"payload\":\"order 1 shipped\"}"))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(accepted.statusCode()).isEqualTo(202);
		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(get("/webhooks/deliveries")).contains("\"targetId\":\"shop-1\"")
				.contains("\"receiptConfirmed\":true"));

		assertThat(get("/actuator/workqueues/deliveries")).contains("\"concurrency\":3", "\"workersAlive\":3");
		assertThat(get("/actuator/prometheus")).contains("workqueue_adds_total{name=\"deliveries\"} 1.0",
				"workqueue_depth{name=\"receipts\"}", "workqueue_work_duration_seconds_count{name=\"deliveries\"} 1");
	}

	private boolean healthy() {
		try {
			return get("/actuator/health").contains("\"status\":\"UP\"");
		}
		catch (IOException ex) {
			return false;
		}
	}

	private String get(String path) throws IOException {
		try {
			return this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString())
				.body();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException(ex);
		}
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	private String log() throws IOException {
		return Files.readString(this.output);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
