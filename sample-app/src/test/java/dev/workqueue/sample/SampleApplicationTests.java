package dev.workqueue.sample;

import java.time.Duration;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample end to end over HTTP: deliveries, one retry, one give-up to the dead letters
 * (and the console's given-up items), the receipt polls, the Actuator endpoint and the
 * Prometheus scrape.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.downstream.failure-rate=0", "sample.downstream.latency=0ms",
				"sample.receipts.poll-interval=20ms",
				"workqueue.queues.deliveries.rate-limiter.exponential.base-delay=5ms",
				"workqueue.queues.deliveries.rate-limiter.item-bucket.qps=1000",
				"workqueue.queues.deliveries.rate-limiter.item-bucket.burst=1000" })
@AutoConfigureRestTestClient
@AutoConfigureMetrics
class SampleApplicationTests {

	@Autowired
	private RestTestClient client;

	@Test
	void deliversRetriesDeadLettersAndReportsTheQueues() {
		postWebhook("shop-1", "order 1 shipped");
		postWebhook("flaky-shop", "order 2 shipped");
		postWebhook("gone-shop", "order 3 shipped");

		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> this.client.get()
				.uri("/webhooks/deliveries")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$[?(@.receiptConfirmed == true)].targetId")
				.value((targets) -> assertThat(targets).asString().contains("shop-1", "flaky-shop")));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> this.client.get()
				.uri("/webhooks/dead-letters")
				.exchange()
				.expectBody()
				.jsonPath("$[0].item")
				.isEqualTo("gone-shop")
				.jsonPath("$[0].attempts")
				.isEqualTo(4)
				.jsonPath("$[0].droppedPayloads")
				.isEqualTo(1)
				.jsonPath("$.length()")
				.isEqualTo(1));

		// flaky-shop failed once and gone-shop three times before the give-up: four
		// retries.
		this.client.get()
			.uri("/actuator/workqueues/deliveries")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.name")
			.isEqualTo("deliveries")
			.jsonPath("$.concurrency")
			.isEqualTo(4)
			.jsonPath("$.retries")
			.isEqualTo(4)
			.jsonPath("$.processing")
			.isEqualTo(0)
			.jsonPath("$.givenUp")
			.isEqualTo(1);
		// The console keeps and shows the given-up item, with its attempts and reason.
		this.client.get()
			.uri("/workqueue/api/queues/deliveries?state=given-up")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.givenUp")
			.isEqualTo(1)
			.jsonPath("$.items['given-up'][0].text")
			.isEqualTo("gone-shop")
			.jsonPath("$.items['given-up'][0].attempts")
			.isEqualTo(4)
			.jsonPath("$.items['given-up'][0].reason")
			.value((reason) -> assertThat(reason).asString().contains("gone-shop is unreachable"));
		this.client.get().uri("/workqueue").exchange().expectStatus().isOk();
		this.client.get()
			.uri("/actuator/workqueues")
			.exchange()
			.expectBody()
			.jsonPath("$.queues[*].name")
			.value((names) -> assertThat(names).asString().contains("deliveries", "receipts"))
			.jsonPath("$.queues[?(@.name == 'receipts')].retries")
			.value((retries) -> assertThat(retries).asString().isNotEqualTo("[0]"));
		this.client.get().uri("/actuator/workqueues/nope").exchange().expectStatus().isNotFound();
		// Runtime control is off unless the application grants write access.
		this.client.post()
			.uri("/actuator/workqueues/deliveries")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"paused\":true}")
			.exchange()
			.expectStatus()
			.isEqualTo(405);
		// Health details (a store's host, port and SQLSTATE when it is down) are not
		// shown to an anonymous caller.
		this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP")
			.jsonPath("$.components")
			.doesNotExist();

		String scrape = this.client.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody();
		assertThat(scrape).contains("workqueue_adds_total{name=\"deliveries\"}",
				"workqueue_retries_total{name=\"deliveries\"} 4.0", "workqueue_depth{name=\"receipts\"}",
				"workqueue_queue_duration_seconds_bucket{name=\"deliveries\"",
				"workqueue_work_duration_seconds_count{name=\"deliveries\"}",
				"workqueue_unfinished_work_seconds{name=\"deliveries\"}",
				"workqueue_longest_running_processor_seconds{name=\"deliveries\"}",
				"workqueue_delayed_items{name=\"receipts\"}");
	}

	@Test
	void badRequestsAreRejectedNamingTheFieldAndQueueNothing() {
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"targetId\":\"\",\"payload\":\"x\"}")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.field")
			.isEqualTo("targetId");
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"targetId\":\"shop-9\"}")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.field")
			.isEqualTo("payload");
		this.client.post()
			.uri("/webhooks/burst?count=0")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.field")
			.isEqualTo("count");
		this.client.get()
			.uri("/webhooks/deliveries")
			.exchange()
			.expectBody()
			.jsonPath("$[?(@.targetId == 'shop-9')]")
			.doesNotExist();
	}

	@Test
	void aBurstStagesAtMostMaxBurstPayloads() {
		this.client.post()
			.uri("/webhooks/burst?count={count}", WebhookController.MAX_BURST + 1)
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.field")
			.isEqualTo("count")
			.jsonPath("$.detail")
			.isEqualTo("count must be between 1 and 10000, was 10001");
	}

	@Test
	void aWebhookMustBeJson() {
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.TEXT_PLAIN)
			.body("{\"targetId\":\"shop-7\",\"payload\":\"x\"}")
			.exchange()
			.expectStatus()
			.isEqualTo(415);
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body("targetId=shop-7&payload=x")
			.exchange()
			.expectStatus()
			.isEqualTo(415);
	}

	@Test
	void aBodyOverTheLimitIsRefusedWith413() {
		String payload = "x".repeat(RequestBodyLimit.MAX_BYTES);
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"targetId\":\"shop-8\",\"payload\":\"" + payload + "\"}")
			.exchange()
			.expectStatus()
			.isEqualTo(413);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("loosePayloads")
	void webhookBodiesAreReadStrictly(String body, String field, String detail) {
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.field")
			.isEqualTo(field)
			.jsonPath("$.detail")
			.isEqualTo(detail);
		this.client.get()
			.uri("/webhooks/deliveries")
			.exchange()
			.expectBody()
			.jsonPath("$[?(@.targetId == 'strict-1')]")
			.doesNotExist();
	}

	static Stream<Arguments> loosePayloads() {
		String fields = "targetId, payload and an optional whole-number priority";
		return Stream.of(
				Arguments.of("{\"targetId\":\"strict-1\",\"payload\":\"x\",\"priority\":1.5}", "priority",
						"priority must be a whole number, was 1.5"),
				Arguments.of("{\"targetId\":\"strict-1\",\"payload\":\"x\",\"priority\":\"5\"}", "priority",
						"priority must be a whole number, was \"5\""),
				Arguments.of("{\"targetId\":\"strict-1\",\"payload\":\"x\",\"priority\":99999999999}", "priority",
						"priority must be a whole number, was 99999999999"),
				Arguments.of("{\"targetId\":\"strict-1\",\"payload\":true}", "payload",
						"payload must be a JSON string, was true"),
				Arguments.of("{\"targetId\":17,\"payload\":\"x\"}", "targetId",
						"targetId must be a JSON string, was 17"),
				Arguments.of("{\"targetId\":\"strict-1\",\"payload\":\"x\",\"prio\":1}", "prio",
						"prio is not a field of a webhook: give " + fields),
				Arguments.of("\"abc\"", "body", "body must be a JSON object with " + fields),
				Arguments.of("[1]", "body", "body must be a JSON object with " + fields),
				Arguments.of("{\"targetId\":", "body", "body must be a JSON object with " + fields));
	}

	private void postWebhook(String targetId, String payload) {
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"targetId\":\"" + targetId + "\",\"payload\":\"" + payload + "\"}")
			.exchange()
			.expectStatus()
			.isAccepted()
			.expectBody()
			.jsonPath("$.targetId")
			.isEqualTo(targetId);
	}

}
