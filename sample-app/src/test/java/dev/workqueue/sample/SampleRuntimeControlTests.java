package dev.workqueue.sample;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
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
		properties = { "management.endpoint.workqueues.access=unrestricted", "sample.downstream.failure-rate=0",
				"sample.downstream.latency=0ms" })
@AutoConfigureRestTestClient
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

	@Test
	void badRequestsAreRefusedAndChangeNothing() {
		Integer concurrency = this.client.get()
			.uri("/actuator/workqueues/deliveries")
			.exchange()
			.returnResult(WorkQueue.class)
			.getResponseBody()
			.concurrency();
		control("nope", "{\"paused\":true}").expectStatus().isNotFound();
		control("deliveries", "{\"concurrency\":0}").expectStatus().isBadRequest();
		control("deliveries", "{\"concurrency\":1025}").expectStatus().isBadRequest();
		control("deliveries", "{\"concurrency\":\"many\"}").expectStatus().isBadRequest();
		control("deliveries", "{\"paused\":\"maybe\"}").expectStatus().isBadRequest();
		control("deliveries", "{}").expectStatus().isBadRequest();
		this.client.get()
			.uri("/actuator/workqueues/deliveries")
			.exchange()
			.expectBody()
			.jsonPath("$.concurrency")
			.isEqualTo(concurrency)
			.jsonPath("$.paused")
			.isEqualTo(false);
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
