package dev.workqueue.console;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The rates the sampler derives from the queues' running totals.
 */
class RateSamplerTests {

	private final Map<String, Double> adds = new ConcurrentHashMap<>();

	private final Map<String, Double> retries = new ConcurrentHashMap<>();

	/** The threads that sampled; of this test's sampler only, unlike a thread's name. */
	private final Set<Thread> sampling = ConcurrentHashMap.newKeySet();

	private final QueueCounters counters = new QueueCounters() {

		@Override
		public double adds(String name) {
			RateSamplerTests.this.sampling.add(Thread.currentThread());
			return RateSamplerTests.this.adds.getOrDefault(name, Double.NaN);
		}

		@Override
		public double retries(String name) {
			return RateSamplerTests.this.retries.getOrDefault(name, Double.NaN);
		}

	};

	private final FakeClock clock = new FakeClock();

	private final RateSampler sampler = new RateSampler(
			new TestRegistry(Map.of("orders", new InspectedQueue("orders", true))), this.counters, this.clock);

	@Test
	void samplesEveryIntervalOnItsOwnThreadUntilStopped() {
		this.adds.put("orders", 0.0);
		this.sampler.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(this.clock::hasWaiters);
			this.adds.put("orders", 50.0);
			this.clock.step(Duration.ofSeconds(9));
			assertThat(this.sampler.rates("orders").adds()).isEmpty();
			this.clock.step(Duration.ofSeconds(1));
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(this.sampler.rates("orders").adds()).containsExactly(5.0));
		}
		finally {
			this.sampler.stop();
		}
		assertThat(this.sampler.isRunning()).isFalse();
		assertThat(this.sampling).singleElement()
			.satisfies((thread) -> assertThat(thread.getName()).isEqualTo("workqueue-console-rates"));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.sampling.stream().noneMatch(Thread::isAlive));
	}

	@Test
	void stopAndStartDuringASampleLeaveOneSamplingThread() throws Exception {
		CountDownLatch inSample = new CountDownLatch(1);
		CountDownLatch finishSample = new CountDownLatch(1);
		AtomicReference<Thread> first = new AtomicReference<>();
		RateSampler sampler = new RateSampler(new TestRegistry(Map.of("orders", new InspectedQueue("orders", true))),
				new QueueCounters() {

					@Override
					public double adds(String name) {
						if (first.compareAndSet(null, Thread.currentThread())) {
							inSample.countDown();
							await().atMost(Duration.ofSeconds(10)).until(() -> finishSample.getCount() == 0);
						}
						return 0;
					}

					@Override
					public double retries(String name) {
						return 0;
					}

				}, this.clock);
		sampler.start();
		try {
			assertThat(inSample.await(5, TimeUnit.SECONDS)).isTrue();
			sampler.stop();
			sampler.start();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.clock.numWaiters() == 1);
			finishSample.countDown();
			await().atMost(Duration.ofSeconds(5)).until(() -> !first.get().isAlive());
			assertThat(sampler.isRunning()).isTrue();
			assertThat(this.clock.numWaiters()).isOne();
		}
		finally {
			finishSample.countDown();
			sampler.stop();
		}
	}

	@Test
	void ratesArePerSecondBetweenSamplesOldestFirst() {
		sample(0, 0);
		assertThat(this.sampler.rates("orders").adds()).isEmpty();
		sample(10, 5);
		sample(40, 5);
		ConsoleRates rates = this.sampler.rates("orders");
		assertThat(rates.intervalSeconds()).isEqualTo(10);
		assertThat(rates.adds()).containsExactly(1.0, 3.0);
		assertThat(rates.retries()).containsExactly(0.5, 0.0);
	}

	@Test
	void fiveMinutesOfRatesAreKept() {
		for (int i = 0; i <= 40; i++) {
			sample(i * 10, 0);
		}
		assertThat(this.sampler.rates("orders").adds()).hasSize(RateSampler.RATES).containsOnly(1.0);
	}

	@Test
	void totalThatWentDownCountsAsNothing() {
		sample(100, 0);
		sample(20, 0);
		assertThat(this.sampler.rates("orders").adds()).containsExactly(0.0);
	}

	@Test
	void addsNotCountedGiveNoRates() {
		this.retries.put("orders", 0.0);
		this.sampler.sample();
		this.retries.put("orders", 20.0);
		this.sampler.sample();
		ConsoleRates rates = this.sampler.rates("orders");
		assertThat(rates.adds()).isEmpty();
		assertThat(rates.retries()).containsExactly(2.0);
	}

	@Test
	void unknownQueueHasNoRates() {
		assertThat(this.sampler.rates("nope").adds()).isEmpty();
		assertThat(this.sampler.rates("nope").retries()).isEmpty();
	}

	@Test
	void metersAreReadWhenTheQueueHasThem() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		registry.counter("workqueue.adds", "name", "orders").increment(3);
		QueueCounters meters = new MeterQueueCounters(registry, this.counters);
		this.retries.put("orders", 4.0);
		assertThat(meters.adds("orders")).isEqualTo(3.0);
		assertThat(meters.retries("orders")).isEqualTo(4.0);
		registry.counter("workqueue.retries", "name", "orders").increment(6);
		assertThat(meters.retries("orders")).isEqualTo(6.0);
	}

	private void sample(double adds, double retries) {
		this.adds.put("orders", adds);
		this.retries.put("orders", retries);
		this.sampler.sample();
	}

}
