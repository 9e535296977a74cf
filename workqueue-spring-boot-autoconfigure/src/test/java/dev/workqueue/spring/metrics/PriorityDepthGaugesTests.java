package dev.workqueue.spring.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the {@code workqueue.depth.by.priority} gauges of {@link WorkQueueMeters}.
 */
class PriorityDepthGaugesTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final WorkQueueMeters meters = new WorkQueueMeters(this.registry);

	@AfterEach
	void closeMeters() {
		this.meters.close();
	}

	@Test
	void priorityZeroAndOtherAreRegisteredWithZerosWhenTheQueueIsCreated() {
		try (PriorityQueue<String> queue = queue("orders")) {
			assertThat(this.registry.find("workqueue.depth.by.priority").gauges()).allSatisfy((gauge) -> {
				assertThat(gauge.getId().getTag("name")).isEqualTo("orders");
				assertThat(gauge.getId().getDescription()).isNotBlank();
			});
			assertThat(depthByPriority()).containsOnly(entry("0", 0.0), entry("other", 0.0));
		}
	}

	@Test
	void aPlainQueueHasNoDepthByPriority() {
		this.meters.bindGauges("orders",
				WorkQueues.<String>builder()
					.name("orders")
					.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter()));
		assertThat(this.registry.find("workqueue.depth.by.priority").gauges()).isEmpty();
	}

	@Test
	void gaugesCountTheReadyItemsOfEachPriorityFromTheFirstReadOnAndStayAtZero() throws InterruptedException {
		try (PriorityQueue<String> queue = queue("orders")) {
			queue.add("a", 5);
			queue.add("b", 5);
			queue.add("c", -1);
			queue.add("d");
			// The first read registers the gauges of the priorities seen.
			assertThat(depthByPriority()).containsEntry("0", 1.0);
			assertThat(depthByPriority()).containsOnly(entry("5", 2.0), entry("0", 1.0), entry("-1", 1.0),
					entry("other", 0.0));
			assertThat(this.registry.get("workqueue.depth").gauge().value()).isEqualTo(4);
			assertThat(queue.getWithPriority()).isEqualTo(new PriorityQueue.Prioritized<>("a", 5));
			assertThat(queue.getWithPriority()).isEqualTo(new PriorityQueue.Prioritized<>("b", 5));
			assertThat(depthByPriority()).containsOnly(entry("5", 0.0), entry("0", 1.0), entry("-1", 1.0),
					entry("other", 0.0));
		}
	}

	@Test
	void atMost25PrioritiesHaveAGaugeAndTheRestAreSummedUnderOther() {
		try (PriorityQueue<String> queue = WorkQueues.<String>builder()
			.name("orders")
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter())) {
			queue.add("zero");
			for (int priority = 1; priority <= 30; priority++) {
				queue.add("item-" + priority, priority);
			}
			// Bound once every priority is queued: the gauges' watch, which may look at
			// any
			// time, sees all of them at its first look (bound before, it may register
			// priority 1 between two adds).
			this.meters.bindGauges("orders", queue);
			depthByPriority();
			Map<String, Double> depth = depthByPriority();
			// Priority 0 from the start, then the highest first: 30 down to 7.
			assertThat(depth).hasSize(26).containsEntry("0", 1.0).containsEntry("30", 1.0).containsEntry("7", 1.0);
			assertThat(depth).doesNotContainKeys("6", "1").containsEntry("other", 6.0);
			assertThat(depth.values().stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(31);
			queue.add("more", -7);
			assertThat(depthByPriority()).hasSize(26).containsEntry("other", 7.0);
		}
	}

	@Test
	void removeUnregistersTheGaugesRegisteredLater() {
		try (PriorityQueue<String> queue = queue("orders")) {
			queue.add("a", 3);
			depthByPriority();
			assertThat(depthByPriority()).containsKey("3");
			this.meters.remove("orders");
			assertThat(this.registry.find("workqueue.depth.by.priority").gauges()).isEmpty();
		}
	}

	@Test
	void prometheusSeriesIsWorkqueueDepthByPriority() {
		PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		try (PriorityQueue<String> queue = WorkQueues.<String>builder()
			.name("orders")
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter())) {
			new WorkQueueMeters(prometheus).bindGauges("orders", queue);
			queue.add("a", -10);
			prometheus.scrape();
			assertThat(prometheus.scrape()).contains("# TYPE workqueue_depth_by_priority gauge",
					"workqueue_depth_by_priority{name=\"orders\",priority=\"-10\"} 1.0",
					"workqueue_depth_by_priority{name=\"orders\",priority=\"0\"} 0.0",
					"workqueue_depth_by_priority{name=\"orders\",priority=\"other\"} 0.0");
		}
	}

	@Test
	void gaugeOfANewPriorityIsRegisteredOffTheAddingThreadWithoutAnyGaugeRead() {
		Map<String, String> registeredBy = new ConcurrentHashMap<>();
		this.registry.config()
			.onMeterAdded((meter) -> registeredBy.put(meter.getId().getName() + meter.getId().getTag("priority"),
					Thread.currentThread().getName()));
		try (PriorityQueue<String> queue = queueWithHook("orders")) {
			queue.add("a", 7);
			queue.add("b", 7);
			queue.add("c", -3);
			// A lookup, as a scrape's first step: it reads no gauge.
			await().atMost(Duration.ofSeconds(10)).until(() -> gauge("7") != null && gauge("-3") != null);
			assertThat(gauge("7").value()).isEqualTo(2.0);
			assertThat(gauge("-3").value()).isEqualTo(1.0);
			assertThat(registeredBy).containsEntry(WorkQueueMeters.DEPTH_BY_PRIORITY + "7",
					"workqueue-priority-gauges");
		}
	}

	@Test
	void anItemAddedAgainWhileProcessingGetsTheGaugeOfItsNewPriorityWhenDone() throws InterruptedException {
		try (PriorityQueue<String> queue = queueWithHook("orders")) {
			queue.add("a");
			assertThat(queue.get()).isEqualTo("a");
			queue.add("a", 4);
			queue.done("a");
			await().atMost(Duration.ofSeconds(10)).until(() -> gauge("4") != null);
			assertThat(gauge("4").value()).isEqualTo(1.0);
		}
	}

	@Test
	void gaugesRegisteredAfterAddsStopAt25PrioritiesAndTheRestCountUnderOther() {
		try (PriorityQueue<String> queue = queueWithHook("orders")) {
			for (int priority = 1; priority <= 30; priority++) {
				queue.add("item-" + priority, priority);
			}
			// Priority 0 from the start, and 24 of those added, in no fixed order.
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.registry.find(WorkQueueMeters.DEPTH_BY_PRIORITY).gauges().size() == 26);
			queue.add("one-more", 31);
			Map<String, Double> depth = depthByPriority();
			assertThat(depth).hasSize(26).containsEntry("0", 0.0).containsEntry("other", 7.0);
			assertThat(depth.values().stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(31);
		}
	}

	private Gauge gauge(String priority) {
		return this.registry.find(WorkQueueMeters.DEPTH_BY_PRIORITY)
			.tag("name", "orders")
			.tag("priority", priority)
			.gauge();
	}

	/** A queue built with the hook of its meters, as the starter builds them. */
	private PriorityQueue<String> queueWithHook(String name) {
		PriorityQueue<String> queue = WorkQueues.<String>builder()
			.name(name)
			.metrics(this.meters.metrics(name))
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter());
		this.meters.bindGauges(name, queue);
		return queue;
	}

	/** Reads every gauge of the queue, by priority tag. */
	private Map<String, Double> depthByPriority() {
		Map<String, Double> depth = new TreeMap<>();
		for (Gauge gauge : this.registry.find("workqueue.depth.by.priority").tag("name", "orders").gauges()) {
			depth.put(gauge.getId().getTag("priority"), gauge.value());
		}
		return depth;
	}

	private PriorityQueue<String> queue(String name) {
		PriorityQueue<String> queue = WorkQueues.<String>builder()
			.name(name)
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter());
		this.meters.bindGauges(name, queue);
		return queue;
	}

}
