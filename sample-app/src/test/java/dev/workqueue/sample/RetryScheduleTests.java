package dev.workqueue.sample;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.test.Idle;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker's retry schedule, driven by stepping a {@link FakeClock}: the starter builds
 * every memory queue (the default profile's) and its limiters on the application's
 * {@code Clock} bean, so the test decides when each backoff has passed. {@code gone-shop}
 * always fails; with a 200 ms base delay and {@code max-retries: 3} it is retried after
 * 200, 400 and 800 ms, then dead-lettered.
 */
@SpringBootTest(properties = { "sample.downstream.failure-rate=0", "sample.downstream.latency=0ms",
		"workqueue.queues.deliveries.rate-limiter.item-bucket.qps=1000",
		"workqueue.queues.deliveries.rate-limiter.item-bucket.burst=1000" })
@ExtendWith(OutputCaptureExtension.class)
class RetryScheduleTests {

	@Autowired
	private FakeClock clock;

	@Autowired
	private Outbox outbox;

	@Autowired
	private DeliveryLedger ledger;

	@Autowired
	private WorkQueueRegistry queues;

	@Autowired
	@Qualifier(WebhookWorkers.DELIVERIES)
	private RateLimitingQueue<String> deliveries;

	@Test
	void failedDeliveryIsRetriedAfterEachBackoffThenDeadLettered(CapturedOutput output) {
		this.outbox.stage("gone-shop", "order 1 shipped");
		this.deliveries.add("gone-shop");
		awaitRetries(1);
		for (Duration backoff : new Duration[] { Duration.ofMillis(200), Duration.ofMillis(400),
				Duration.ofMillis(800) }) {
			this.clock.step(backoff.minusMillis(1));
			assertThat(this.deliveries.stats().waiting()).as("not due 1 ms before its backoff").isOne();
			// Read before the step: the worker may fail again before the test looks.
			long retries = this.deliveries.stats().retries();
			this.clock.step(Duration.ofMillis(1));
			if (retries < 3) {
				awaitRetries(retries + 1);
			}
		}
		Idle.await(this.queues, Duration.ofSeconds(5));
		assertThat(this.ledger.deadLetters()).singleElement()
			.satisfies((letter) -> assertThat(letter.attempts()).isEqualTo(4));
		// The log line shows the item as the starter does, and never the failure's text.
		assertThat(output)
			.contains("Dead-lettered item gone-shop of queue 'deliveries' after 4 attempt(s), 1 payload(s) dropped")
			.doesNotContain("DeadLetter[");
	}

	/**
	 * Waits until the worker has failed again and the item waits for its next backoff.
	 */
	private void awaitRetries(long retries) {
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			WorkQueueStats stats = this.deliveries.stats();
			return stats.retries() == retries && stats.waiting() == 1;
		});
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class FakeClockConfiguration {

		@Bean
		FakeClock clock() {
			return new FakeClock();
		}

	}

}
