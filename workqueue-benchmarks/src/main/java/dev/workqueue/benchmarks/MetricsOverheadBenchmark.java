package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueues;
import dev.workqueue.spring.metrics.WorkQueueMeters;
import dev.workqueue.time.Clock;

/**
 * Issue 5: the cost of metrics on the W1b hand-off (one producer, one consumer, see
 * {@link HandOffQueue}), our work queue without metrics beside the same queue bound to a
 * {@link PrometheusMeterRegistry} through {@link WorkQueueMeters}, as the Spring Boot
 * starter binds it (every counter, timer and gauge registered; nobody scrapes during the
 * run), and bound the same way with {@code latency-timers: false} (the counters and
 * gauges, no timers). Read the {@code ...Consume} rows; the target is a loss of at most
 * 15 %.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
public class MetricsOverheadBenchmark {

	@Benchmark
	@Group("handOff_ours")
	@GroupThreads(1)
	public void noMetricsProduce(QueueHandOffBenchmark.Ours queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("handOff_ours")
	@GroupThreads(1)
	public String noMetricsConsume(QueueHandOffBenchmark.Ours queue, HandOffQueue.Consumer consumer)
			throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	@Group("handOff_oursPrometheus")
	@GroupThreads(1)
	public void prometheusProduce(Prometheus queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("handOff_oursPrometheus")
	@GroupThreads(1)
	public String prometheusConsume(Prometheus queue, HandOffQueue.Consumer consumer) throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	@Group("handOff_oursPrometheusNoTimers")
	@GroupThreads(1)
	public void prometheusNoTimersProduce(PrometheusNoTimers queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("handOff_oursPrometheusNoTimers")
	@GroupThreads(1)
	public String prometheusNoTimersConsume(PrometheusNoTimers queue, HandOffQueue.Consumer consumer)
			throws InterruptedException {
		return queue.consume(consumer);
	}

	/**
	 * What the Prometheus-bound hooks cost one item on one thread, without any queue:
	 * {@code added}, {@code handedOut} and {@code done}, as a queue calls them for each
	 * item (one counter increment, two timer recordings). Explains the hand-off loss.
	 */
	@Benchmark
	@OutputTimeUnit(TimeUnit.NANOSECONDS)
	@BenchmarkMode(Mode.AverageTime)
	@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
	public void hooksPerItem_prometheus(Hooks hooks) {
		WorkQueueMetrics metrics = hooks.metrics;
		long nanos = hooks.nextNanos();
		metrics.added();
		metrics.handedOut(nanos);
		metrics.done(nanos >>> 1);
	}

	/**
	 * The floor under {@link #hooksPerItem_prometheus}: one recording of a Micrometer
	 * {@code Timer} of the Prometheus registry with client-go's buckets, as the starter's
	 * {@code workqueue.queue.duration} and {@code workqueue.work.duration} are. An item
	 * pays two.
	 */
	@Benchmark
	@OutputTimeUnit(TimeUnit.NANOSECONDS)
	@BenchmarkMode(Mode.AverageTime)
	@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
	public void timerRecord_prometheus(Hooks hooks) {
		hooks.timer.record(hooks.nextNanos(), TimeUnit.NANOSECONDS);
	}

	/**
	 * The queue's own share of metrics: one read of the system {@link Clock}, of which a
	 * queue with metrics makes three per item (add, hand-out, done), one with the latency
	 * timers off one (hand-out, for the in-process gauges), and one without metrics none.
	 */
	@Benchmark
	@OutputTimeUnit(TimeUnit.NANOSECONDS)
	@BenchmarkMode(Mode.AverageTime)
	@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
	public long clockRead_system(Hooks hooks) {
		return hooks.clock.nanoTime();
	}

	/**
	 * The hooks of one queue bound to a Prometheus registry, as the starter binds them.
	 */
	@State(Scope.Thread)
	public static class Hooks {

		WorkQueueMetrics metrics;

		private long nanos;

		Timer timer;

		final Clock clock = Clock.system();

		@Setup
		public void open() {
			PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
			this.metrics = new WorkQueueMeters(registry).metrics("bench");
			// The queue-duration timer the hooks above record into, found as a user
			// would.
			this.timer = registry.get("workqueue.queue.duration").timer();
		}

		/** Durations from 1 µs to about 1 ms, so that recordings spread over buckets. */
		long nextNanos() {
			this.nanos = (this.nanos + 7919) & 0xFFFFF;
			return 1_000 + this.nanos;
		}

	}

	/** Our work queue bound to a Prometheus registry, fresh for each iteration. */
	@State(Scope.Group)
	public static class Prometheus extends QueueHandOffBenchmark.Ours {

		@Override
		WorkQueue<String> newQueue() {
			return meteredQueue(true);
		}

	}

	/**
	 * Our work queue bound to a Prometheus registry without the two latency timers, as
	 * the starter binds a queue with {@code latency-timers: false}; fresh for each
	 * iteration.
	 */
	@State(Scope.Group)
	public static class PrometheusNoTimers extends QueueHandOffBenchmark.Ours {

		@Override
		WorkQueue<String> newQueue() {
			return meteredQueue(false);
		}

	}

	private static WorkQueue<String> meteredQueue(boolean latencyTimers) {
		WorkQueueMeters meters = new WorkQueueMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
		WorkQueue<String> queue = WorkQueues.<String>builder()
			.name("bench")
			.metrics(meters.metrics("bench", latencyTimers))
			.buildQueue();
		meters.bindGauges("bench", queue);
		return queue;
	}

}
