package dev.workqueue.spring.metrics;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.withSettings;

/**
 * Tests for {@link WorkQueueMeters}.
 */
class WorkQueueMetersTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final WorkQueueMeters meters = new WorkQueueMeters(this.registry);

	@Test
	void everyMeterIsRegisteredWithZeroValuesWhenTheQueueIsCreated() {
		try (DelayingQueue<String> queue = queue("orders", new FakeClock())) {
			assertThat(workQueueMeters()).extracting((meter) -> meter.getId().getName())
				.containsExactlyInAnyOrder("workqueue.depth", "workqueue.adds", "workqueue.queue.duration",
						"workqueue.work.duration", "workqueue.unfinished.work", "workqueue.longest.running.processor",
						"workqueue.retries", "workqueue.delayed.items", "workqueue.stalled");
			assertThat(workQueueMeters()).allSatisfy((meter) -> {
				assertThat(meter.getId().getTags()).extracting("key", "value").containsExactly(tuple("name", "orders"));
				assertThat(meter.getId().getDescription()).isNotBlank();
				assertThat(meter.measure()).allSatisfy((measurement) -> assertThat(measurement.getValue()).isZero());
			});
		}
	}

	@Test
	void timersAndTimeGaugesAreInSecondsAndTheOthersHaveNoUnit() {
		try (DelayingQueue<String> queue = queue("orders", new FakeClock())) {
			assertThat(this.registry.get("workqueue.queue.duration").timer().getId().getBaseUnit())
				.isEqualTo("seconds");
			assertThat(this.registry.get("workqueue.work.duration").timer().getId().getBaseUnit()).isEqualTo("seconds");
			assertThat(this.registry.get("workqueue.unfinished.work").timeGauge().getId().getBaseUnit())
				.isEqualTo("seconds");
			assertThat(this.registry.get("workqueue.longest.running.processor").timeGauge().getId().getBaseUnit())
				.isEqualTo("seconds");
			assertThat(this.registry.get("workqueue.adds").counter().getId().getBaseUnit()).isNull();
			assertThat(this.registry.get("workqueue.retries").counter().getId().getBaseUnit()).isNull();
			assertThat(this.registry.get("workqueue.depth").gauge().getId().getBaseUnit()).isNull();
			assertThat(this.registry.get("workqueue.delayed.items").gauge().getId().getBaseUnit()).isNull();
		}
	}

	@Test
	void durationsAreMeasuredOnTheQueueClock() throws InterruptedException {
		FakeClock clock = new FakeClock();
		try (DelayingQueue<String> queue = queue("orders", clock)) {
			queue.add("a");
			clock.step(Duration.ofSeconds(2));
			assertThat(queue.get()).isEqualTo("a");
			clock.step(Duration.ofSeconds(3));
			assertThat(timeGauge("workqueue.unfinished.work").value(TimeUnit.SECONDS)).isEqualTo(3.0);
			assertThat(timeGauge("workqueue.longest.running.processor").value(TimeUnit.SECONDS)).isEqualTo(3.0);
			queue.done("a");

			Timer queueDuration = timer("workqueue.queue.duration");
			assertThat(queueDuration.count()).isEqualTo(1);
			assertThat(queueDuration.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(2e9);
			Timer workDuration = timer("workqueue.work.duration");
			assertThat(workDuration.count()).isEqualTo(1);
			assertThat(workDuration.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(3e9);
			assertThat(timeGauge("workqueue.unfinished.work").value()).isZero();
			assertThat(timeGauge("workqueue.longest.running.processor").value()).isZero();
		}
	}

	@Test
	void unfinishedWorkSumsTheItemsInProcessAndLongestRunningTakesTheOldest() throws InterruptedException {
		FakeClock clock = new FakeClock();
		try (DelayingQueue<String> queue = queue("orders", clock)) {
			queue.add("a");
			queue.add("b");
			assertThat(queue.get()).isEqualTo("a");
			clock.step(Duration.ofSeconds(1));
			assertThat(queue.get()).isEqualTo("b");
			clock.step(Duration.ofSeconds(2));
			assertThat(timeGauge("workqueue.unfinished.work").value(TimeUnit.SECONDS)).isEqualTo(3.0 + 2.0);
			assertThat(timeGauge("workqueue.longest.running.processor").value(TimeUnit.SECONDS)).isEqualTo(3.0);
		}
	}

	@Test
	void addsCountOnlyEffectiveAddsAndDepthFollowsTheReadyItems() throws InterruptedException {
		try (DelayingQueue<String> queue = queue("orders", new FakeClock())) {
			queue.add("a");
			queue.add("a");
			queue.add("b");
			assertThat(counter("workqueue.adds").count()).isEqualTo(2);
			assertThat(gauge("workqueue.depth").value()).isEqualTo(2);
			assertThat(queue.get()).isEqualTo("a");
			assertThat(gauge("workqueue.depth").value()).isEqualTo(1);
		}
	}

	@Test
	void depthCountsAnItemAddedAgainWhileProcessingAsClientGoDoes() throws InterruptedException {
		try (DelayingQueue<String> queue = queue("orders", new FakeClock())) {
			queue.add("a");
			assertThat(queue.get()).isEqualTo("a");
			queue.add("a");
			assertThat(queue.size()).as("size(): ready items only").isZero();
			assertThat(gauge("workqueue.depth").value()).as("client-go: added and not yet handed out").isEqualTo(1);
			assertThat(counter("workqueue.adds").count()).isEqualTo(2);
			queue.done("a");
			assertThat(queue.size()).isOne();
			assertThat(gauge("workqueue.depth").value()).isEqualTo(1);
			assertThat(queue.get()).isEqualTo("a");
			assertThat(gauge("workqueue.depth").value()).isZero();
		}
	}

	@Test
	void everyDelayedAddIsARetryAndWaitsAsADelayedItem() {
		FakeClock clock = new FakeClock();
		try (DelayingQueue<String> queue = queue("orders", clock)) {
			queue.addAfter("a", Duration.ofSeconds(5));
			queue.addAfter("a", Duration.ofSeconds(10));
			queue.addAfter("b", Duration.ofSeconds(5));
			assertThat(counter("workqueue.retries").count()).isEqualTo(3);
			await().atMost(Duration.ofSeconds(10)).until(() -> gauge("workqueue.delayed.items").value() == 2);
			assertThat(gauge("workqueue.depth").value()).isZero();
			clock.step(Duration.ofSeconds(5));
			await().atMost(Duration.ofSeconds(10)).until(() -> gauge("workqueue.depth").value() == 2);
			assertThat(gauge("workqueue.delayed.items").value()).isZero();
			assertThat(counter("workqueue.adds").count()).isEqualTo(2);
		}
	}

	@Test
	void withoutLatencyTimersTheTimersAreNotRegisteredAndTheRestIs() {
		try (DelayingQueue<String> queue = queue("orders", new FakeClock(), false)) {
			assertThat(this.registry.getMeters()).extracting((meter) -> meter.getId().getName())
				.containsExactlyInAnyOrder("workqueue.depth", "workqueue.adds", "workqueue.unfinished.work",
						"workqueue.longest.running.processor", "workqueue.retries", "workqueue.delayed.items",
						"workqueue.stalled");
		}
	}

	@Test
	void withoutLatencyTimersTheHookRecordsNoDurationsAndTheRestAsBefore() throws InterruptedException {
		FakeClock clock = new FakeClock();
		try (DelayingQueue<String> queue = queue("orders", clock, false)) {
			queue.add("a");
			assertThat(counter("workqueue.adds").count()).isOne();
			assertThat(gauge("workqueue.depth").value()).isOne();
			assertThat(queue.get()).isEqualTo("a");
			clock.step(Duration.ofSeconds(3));
			assertThat(timeGauge("workqueue.unfinished.work").value(TimeUnit.SECONDS)).isEqualTo(3.0);
			assertThat(timeGauge("workqueue.longest.running.processor").value(TimeUnit.SECONDS)).isEqualTo(3.0);
			queue.addAfter("b", Duration.ofSeconds(1));
			queue.done("a");
			assertThat(counter("workqueue.retries").count()).isOne();
			await().atMost(Duration.ofSeconds(10)).until(() -> gauge("workqueue.delayed.items").value() == 1);
			assertThat(timeGauge("workqueue.unfinished.work").value()).isZero();
			assertThat(this.registry.find("workqueue.queue.duration").meters()).isEmpty();
			assertThat(this.registry.find("workqueue.work.duration").meters()).isEmpty();
		}
	}

	@Test
	void aHookWithoutLatencyTimersSaysItRecordsNoDurationsAndIgnoresAnyItIsGiven() {
		WorkQueueMetrics metrics = this.meters.metrics("orders", false);
		assertThat(metrics.recordsDurations()).isFalse();
		metrics.handedOut(1_000);
		metrics.done(1_000);
		assertThat(this.registry.find("workqueue.queue.duration").meters()).isEmpty();
		assertThat(this.meters.metrics("invoices").recordsDurations()).isTrue();
		assertThat(this.meters.metrics("invoices", true).recordsDurations()).isTrue();
	}

	@Test
	void removeUnregistersTheMetersOfAQueueWithoutLatencyTimers() {
		try (DelayingQueue<String> orders = queue("orders", new FakeClock(), false)) {
			this.meters.remove("orders");
			assertThat(this.registry.getMeters()).isEmpty();
		}
	}

	@Test
	void theSameNameRecordsIntoTheSameMeters() {
		this.meters.metrics("orders").added();
		this.meters.metrics("orders").added();
		assertThat(counter("workqueue.adds").count()).isEqualTo(2);
	}

	@Test
	void removeUnregistersTheMetersOfThatQueueOnly() {
		try (DelayingQueue<String> orders = queue("orders", new FakeClock());
				DelayingQueue<String> invoices = queue("invoices", new FakeClock())) {
			this.meters.remove("orders");
			assertThat(this.registry.getMeters()).noneMatch((meter) -> "orders".equals(meter.getId().getTag("name")));
			assertThat(workQueueMeters()).hasSize(9)
				.allSatisfy((meter) -> assertThat(meter.getId().getTag("name")).isEqualTo("invoices"));
			this.meters.remove("orders");
			assertThat(workQueueMeters()).hasSize(9);
		}
	}

	@Test
	void gaugesDoNotKeepTheQueueAlive() {
		WeakReference<WorkQueue<String>> reference = bindDiscardedQueue();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			System.gc();
			return reference.get() == null;
		});
		assertThat(gauge("workqueue.depth").value()).isNaN();
	}

	@Test
	void nullArgumentsAreRejectedNamingTheParameter() {
		assertThatNullPointerException().isThrownBy(() -> new WorkQueueMeters(null)).withMessage("registry");
		assertThatNullPointerException().isThrownBy(() -> this.meters.metrics(null)).withMessage("queueName");
		assertThatNullPointerException().isThrownBy(() -> this.meters.metrics(null, false)).withMessage("queueName");
		assertThatNullPointerException().isThrownBy(() -> this.meters.bindGauges("orders", null)).withMessage("queue");
		assertThatNullPointerException().isThrownBy(() -> this.meters.remove(null)).withMessage("queueName");
	}

	/**
	 * The meters of the contract, without the bucket gauges that non-Prometheus
	 * registries add for each timer ({@code workqueue.queue.duration.histogram}).
	 */
	private List<Meter> workQueueMeters() {
		return this.registry.getMeters()
			.stream()
			.filter((meter) -> !meter.getId().getName().endsWith(".histogram"))
			.toList();
	}

	private WeakReference<WorkQueue<String>> bindDiscardedQueue() {
		WorkQueue<String> queue = WorkQueues.<String>builder().name("orders").buildQueue();
		this.meters.bindGauges("orders", queue);
		queue.add("a");
		assertThat(gauge("workqueue.depth").value()).isEqualTo(1);
		return new WeakReference<>(queue);
	}

	@Test
	@SuppressWarnings("unchecked")
	void theGaugesOfASharedQueueReadItsStatsOncePerScrape() {
		// A shared queue behind core's rate-limiting wrapper, as the redis backend
		// builds.
		DelayingQueue<String> shared = mock(DelayingQueue.class, withSettings().extraInterfaces(SharedWorkQueue.class));
		// A mock answers every method, the default ones too, with an empty value.
		given(shared.capability(any())).willCallRealMethod();
		given(((SharedWorkQueue) shared).reportsSharedGauges()).willReturn(true);
		given(shared.stats()).willReturn(new WorkQueueStats(3, 1, 2, 0, 0, 4_000_000_000L, 4_000_000_000L, 1));
		this.meters.bindGauges("orders", WorkQueues.rateLimiting(shared, RateLimiters.defaultControllerRateLimiter()));
		assertThat(this.registry.get("workqueue.depth").gauge().value()).isEqualTo(4);
		assertThat(this.registry.get("workqueue.delayed.items").gauge().value()).isEqualTo(2);
		assertThat(this.registry.get("workqueue.unfinished.work").timeGauge().value(TimeUnit.SECONDS)).isEqualTo(4);
		assertThat(this.registry.get("workqueue.longest.running.processor").timeGauge().value(TimeUnit.SECONDS))
			.isEqualTo(4);
		verify(shared, times(1)).stats();
	}

	@Test
	void theGaugesOfAQueueOfThisProcessReadItAfresh() throws InterruptedException {
		try (DelayingQueue<String> queue = queue("orders", new FakeClock())) {
			queue.add("a");
			assertThat(this.registry.get("workqueue.depth").gauge().value()).isOne();
			queue.add("b");
			assertThat(this.registry.get("workqueue.depth").gauge().value()).isEqualTo(2);
		}
	}

	private DelayingQueue<String> queue(String name, FakeClock clock) {
		return queue(name, clock, true);
	}

	private DelayingQueue<String> queue(String name, FakeClock clock, boolean latencyTimers) {
		DelayingQueue<String> queue = WorkQueues.<String>builder()
			.name(name)
			.clock(clock)
			.metrics(this.meters.metrics(name, latencyTimers))
			.buildDelayingQueue();
		this.meters.bindGauges(name, queue);
		return queue;
	}

	private Counter counter(String name) {
		return this.registry.get(name).tag("name", "orders").counter();
	}

	private Timer timer(String name) {
		return this.registry.get(name).tag("name", "orders").timer();
	}

	private Gauge gauge(String name) {
		return this.registry.get(name).tag("name", "orders").gauge();
	}

	private TimeGauge timeGauge(String name) {
		return this.registry.get(name).tag("name", "orders").timeGauge();
	}

}
