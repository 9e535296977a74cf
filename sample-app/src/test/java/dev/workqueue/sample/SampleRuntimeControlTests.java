package dev.workqueue.sample;

import java.time.Duration;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spring.WorkQueueRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runtime control over HTTP, granted with Boot's own endpoint access setting: pause a
 * queue's workers, see it in the endpoint and in health, resize, resume, and the 400s and
 * 404s of bad requests.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoint.workqueues.access=unrestricted",
				// The sample shows health details only when authorized; this test reads
				// them.
				"management.endpoint.health.show-details=always", "sample.downstream.failure-rate=0",
				"sample.downstream.latency=0ms", "logging.level.dev.workqueue.spring.actuate.endpoint=debug" })
@AutoConfigureRestTestClient
@ExtendWith(OutputCaptureExtension.class)
class SampleRuntimeControlTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private WorkQueueRegistry queues;

	@Test
	void pauseHoldsTheItemsResizeAndResumeDeliverThem() {
		// Issue 28: a pause ends a poll under way only on a queue whose pollers can be
		// woken, which core's queues become with the engine part; until then
		// their fallback poller takes the pause within the poll timeout.
		assertThat(this.queues.get(WebhookWorkers.DELIVERIES).capability(PollerFactory.class))
			.as("the deliveries queue has PollerFactory")
			.isPresent();
		control("deliveries", "{\"paused\":true}").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.paused")
			.isEqualTo(true)
			.jsonPath("$.workers[0].paused")
			.isEqualTo(true);
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"targetId\":\"shop-7\",\"payload\":\"held\"}")
			.exchange()
			.expectStatus()
			.isAccepted();
		// Adding is not blocked; no paused worker takes the item.
		await().during(Duration.ofMillis(300))
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> this.client.get()
				.uri("/actuator/workqueues/deliveries")
				.exchange()
				.expectBody()
				.jsonPath("$.depth")
				.isEqualTo(1)
				.jsonPath("$.processing")
				.isEqualTo(0));
		this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.components.workqueues.status")
			.isEqualTo("UP")
			.jsonPath("$.components.workqueues.details.deliveries")
			.isEqualTo("paused");

		control("deliveries", "{\"concurrency\":2}").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.concurrency")
			.isEqualTo(2)
			.jsonPath("$.paused")
			.isEqualTo(true);
		control("deliveries", "{\"paused\":false}").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.paused")
			.isEqualTo(false);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> this.client.get()
				.uri("/actuator/workqueues/deliveries")
				.exchange()
				.expectBody()
				.jsonPath("$.depth")
				.isEqualTo(0)
				.jsonPath("$.processing")
				.isEqualTo(0)
				.jsonPath("$.workersAlive")
				.isEqualTo(2));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badRequests")
	void badRequestsAreRefusedNamingTheFieldAndChangeNothing(String body, String field, String message,
			CapturedOutput output) {
		Integer concurrency = this.client.get()
			.uri("/actuator/workqueues/deliveries")
			.exchange()
			.returnResult(WorkQueue.class)
			.getResponseBody()
			.concurrency();
		RestTestClient.BodyContentSpec answer = control("deliveries", body).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(400)
			.jsonPath("$.message")
			.isEqualTo(message);
		if (field != null) {
			answer.jsonPath("$.field").isEqualTo(field);
		}
		else {
			answer.jsonPath("$.field").doesNotExist();
		}
		assertThat(output).contains("Refused runtime control of queue 'deliveries': " + message);
		this.client.get()
			.uri("/actuator/workqueues/deliveries")
			.exchange()
			.expectBody()
			.jsonPath("$.concurrency")
			.isEqualTo(concurrency)
			.jsonPath("$.paused")
			.isEqualTo(false);
	}

	static Stream<Arguments> badRequests() {
		String range = "concurrency must be between 1 and 1024, was ";
		String whole = "concurrency must be a whole number from 1 to 1024, was ";
		String give = "\"paused\" (true or false) and/or \"concurrency\" (1 to 1024)";
		return Stream.of(Arguments.of("{\"concurrency\":0}", "concurrency", range + "0"),
				Arguments.of("{\"concurrency\":1025}", "concurrency", range + "1025"),
				Arguments.of("{\"concurrency\":1.5}", "concurrency", whole + "'1.5'"),
				Arguments.of("{\"concurrency\":\"many\"}", "concurrency",
						"concurrency must be a JSON number, not a string, was 'many'"),
				Arguments.of("{\"concurrency\":\"3\"}", "concurrency",
						"concurrency must be a JSON number, not a string, was '3'"),
				Arguments.of("{\"paused\":\"true\"}", "paused",
						"paused must be a JSON true or false, not a string, was 'true'"),
				Arguments.of("{\"concurrency\":99999999999}", "concurrency", whole + "'99999999999'"),
				Arguments.of("{\"paused\":\"yes\"}", "paused",
						"paused must be a JSON true or false, not a string, was 'yes'"),
				Arguments.of("{\"paused\":1}", "paused", "paused must be true or false, was '1'"),
				Arguments.of("{\"pause\":true}", "pause", "Unknown field 'pause': give " + give),
				Arguments.of("{\"paused\":true,\"extra\":1}", "extra", "Unknown field 'extra': give " + give),
				Arguments.of("{}", null, "Give " + give),
				Arguments.of("\"abc\"", null, "The body must be a JSON object with " + give),
				Arguments.of("{\"paused\":", null, "The body must be a JSON object with " + give),
				Arguments.of("{\"paused\":{\"value\":true}}", null, "The body must be a JSON object with " + give));
	}

	@Test
	void unknownQueueIsNotFound() {
		control("nope", "{\"paused\":true}").expectStatus().isNotFound();
	}

	/** The part of the endpoint's answer this test reads. */
	record WorkQueue(int concurrency) {
	}

	private RestTestClient.ResponseSpec control(String queue, String body) {
		return this.client.post()
			.uri("/actuator/workqueues/" + queue)
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.exchange();
	}

}
