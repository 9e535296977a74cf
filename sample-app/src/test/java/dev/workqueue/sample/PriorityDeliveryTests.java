package dev.workqueue.sample;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.worker.WorkerContainerRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The deliveries queue's priorities: a webhook posted while a burst is queued is
 * delivered before the burst's waiting targets, the endpoint and the scrape show the
 * waiting targets by priority, and a priority out of range is refused.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.downstream.failure-rate=0", "sample.downstream.latency=20ms" })
@AutoConfigureRestTestClient
@AutoConfigureMetrics
class PriorityDeliveryTests {

	private static final int BURST_TARGETS = 400;

	@Autowired
	private RestTestClient client;

	@Autowired
	private DeliveryLedger ledger;

	@Autowired
	private WorkerContainerRegistry workers;

	@Autowired
	private WorkQueueRegistry queues;

	@Test
	void aWebhookOvertakesAQueuedBurst() {
		// Issue 28: a pause ends a poll under way only on a queue whose pollers can be
		// woken, which core's queues become with the engine part; until then
		// their fallback poller takes the pause within the poll timeout.
		assertThat(this.queues.get(WebhookWorkers.DELIVERIES).capability(PollerFactory.class))
			.as("the deliveries queue has PollerFactory")
			.isPresent();
		// Paused, so that the whole burst is queued when the webhook comes.
		this.workers.setPaused(WebhookWorkers.DELIVERIES, true);
		this.client.post()
			.uri("/webhooks/burst?count={count}&targets={count}", BURST_TARGETS, BURST_TARGETS)
			.exchange()
			.expectStatus()
			.isAccepted()
			.expectBody()
			.jsonPath("$.priority")
			.isEqualTo(WebhookController.BURST_PRIORITY);
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"targetId\":\"vip\",\"payload\":\"urgent\",\"priority\":10}")
			.exchange()
			.expectStatus()
			.isAccepted()
			.expectBody()
			.jsonPath("$.priority")
			.isEqualTo(10);
		this.client.get()
			.uri("/actuator/workqueues/deliveries")
			.exchange()
			.expectBody()
			.jsonPath("$.priorities['10']")
			.isEqualTo(1)
			.jsonPath("$.priorities['-10']")
			.isEqualTo(BURST_TARGETS)
			.jsonPath("$.oldestReadySeconds['-10']")
			.exists();
		this.client.get().uri("/actuator/prometheus").exchange().expectStatus().isOk();
		assertThat(
				this.client.get().uri("/actuator/prometheus").exchange().returnResult(String.class).getResponseBody())
			.contains("workqueue_depth_by_priority{name=\"deliveries\",priority=\"-10\"} " + BURST_TARGETS + ".0",
					"workqueue_depth_by_priority{name=\"deliveries\",priority=\"10\"} 1.0");

		this.workers.setPaused(WebhookWorkers.DELIVERIES, false);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.ledger.deliveries().stream().anyMatch((delivery) -> delivery.targetId().equals("vip")));
		List<String> delivered = this.ledger.deliveries().stream().map(Delivery::targetId).toList();
		// Handed out first; the four workers deliver at once, so it may end up to fourth.
		assertThat(delivered.indexOf("vip")).isLessThan(4);
	}

	@Test
	void aPriorityOutOfRangeIsRefusedWithTheBounds() {
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"targetId\":\"shop-1\",\"payload\":\"x\",\"priority\":1000001}")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.field")
			.isEqualTo("priority")
			.jsonPath("$.detail")
			.isEqualTo("priority must be between -1000000 and 1000000, was 1000001");
	}

}
