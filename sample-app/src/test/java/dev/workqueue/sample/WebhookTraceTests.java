package dev.workqueue.sample;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One trace from a {@code POST /webhooks} through its deliveries: the queues carry the
 * request's trace context to the {@code deliveries} worker, whose failed attempt is the
 * parent of its retry, and whose {@code receipts} add carries it on to the receipt polls.
 * Brave, as Spring Boot sets it up for the sample, reports to memory here.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.downstream.failure-rate=0", "sample.downstream.latency=0ms",
				"sample.downstream.flaky-targets=traced-shop", "sample.receipts.poll-interval=20ms",
				"workqueue.queues.deliveries.rate-limiter.exponential.base-delay=5ms",
				"workqueue.queues.deliveries.rate-limiter.item-bucket.qps=1000",
				"workqueue.queues.deliveries.rate-limiter.item-bucket.burst=1000" })
@AutoConfigureRestTestClient
class WebhookTraceTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private FinishedSpans spans;

	@Test
	void aWebhookAndItsDeliveriesRetriesAndReceiptPollsShareOneTrace() {
		this.client.post()
			.uri("/webhooks")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"targetId\":\"traced-shop\",\"payload\":\"order 7 shipped\"}")
			.exchange()
			.expectStatus()
			.isAccepted();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.spans.named("http post /webhooks").size() == 1);
		MutableSpan request = this.spans.named("http post /webhooks").get(0);
		// traced-shop fails its first attempt: a failed delivery, then a good one, then
		// the receipt polls (two with the default downstream).
		await().atMost(Duration.ofSeconds(10))
			.until(() -> inTrace(request, "deliveries process").size() == 2
					&& inTrace(request, "receipts process").size() >= 2);
		List<MutableSpan> deliveries = inTrace(request, "deliveries process");
		MutableSpan failed = deliveries.get(0);
		MutableSpan retried = deliveries.get(1);
		assertThat(failed.tags()).containsEntry("workqueue.outcome", "failed");
		assertThat(this.spans.ancestors(failed)).contains(request.id());
		assertThat(retried.parentId()).isEqualTo(failed.id());
		assertThat(retried.tags()).containsEntry("workqueue.outcome", "done");
		List<MutableSpan> receipts = inTrace(request, "receipts process");
		assertThat(receipts.get(0).parentId()).isEqualTo(retried.id());
		assertThat(receipts.get(1).parentId()).isEqualTo(receipts.get(0).id());
	}

	/** The spans of the request's trace with the name, in start order. */
	private List<MutableSpan> inTrace(MutableSpan request, String name) {
		return this.spans.named(name)
			.stream()
			.filter((span) -> span.traceId().equals(request.traceId()))
			.sorted(Comparator.comparingLong(MutableSpan::startTimestamp))
			.toList();
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class SpansInMemory {

		@Bean
		FinishedSpans finishedSpans() {
			return new FinishedSpans();
		}

	}

	/** Brave's finished spans, in memory. */
	static class FinishedSpans extends SpanHandler {

		private final List<MutableSpan> spans = new CopyOnWriteArrayList<>();

		@Override
		public boolean end(TraceContext context, MutableSpan span, Cause cause) {
			if (cause == Cause.FINISHED) {
				this.spans.add(span);
			}
			return true;
		}

		List<MutableSpan> named(String name) {
			return this.spans.stream().filter((span) -> name.equalsIgnoreCase(span.name())).toList();
		}

		/** The ids of the span's parent, its parent's parent, and so on. */
		List<String> ancestors(MutableSpan span) {
			List<String> ids = new CopyOnWriteArrayList<>();
			String parent = span.parentId();
			while (parent != null && !ids.contains(parent)) {
				ids.add(parent);
				String id = parent;
				parent = this.spans.stream()
					.filter((each) -> each.id().equals(id))
					.findFirst()
					.map(MutableSpan::parentId)
					.orElse(null);
			}
			return ids;
		}

	}

}
