package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;

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
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.spring.metrics.WorkQueueMeters;

/**
 * Issue 5: the cost of metrics on the W1b hand-off (one producer, one consumer, see
 * {@link HandOffQueue}), our work queue without metrics beside the same queue bound to a
 * {@link PrometheusMeterRegistry} through {@link WorkQueueMeters}, as the Spring Boot
 * starter binds it (every counter, timer and gauge registered; nobody scrapes during the
 * run). Read the {@code ...Consume} rows; the target is a loss of at most 15 %.
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
	public void noMetricsProduce(Plain queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("handOff_ours")
	@GroupThreads(1)
	public String noMetricsConsume(Plain queue, HandOffQueue.Consumer consumer) throws InterruptedException {
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

	/** Our work queue and its consumer step, with or without metrics. */
	abstract static class Measured extends HandOffQueue {

		WorkQueue<String> queue;

		@Override
		void put(String item) {
			this.queue.add(item);
		}

		@Override
		String take() throws InterruptedException {
			String item = this.queue.get();
			if (item != null) {
				this.queue.done(item);
			}
			return item;
		}

		@Override
		void release() {
			this.queue.shutDown();
		}

		@Override
		void stop() {
			this.queue.shutDown();
		}

	}

	/** No metrics: the builder's default. */
	@State(Scope.Group)
	public static class Plain extends Measured {

		@Override
		void start() {
			this.queue = WorkQueues.<String>builder().name("bench").buildQueue();
		}

	}

	/** Bound to a Prometheus registry, fresh for each iteration. */
	@State(Scope.Group)
	public static class Prometheus extends Measured {

		@Override
		void start() {
			WorkQueueMeters meters = new WorkQueueMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
			this.queue = WorkQueues.<String>builder().name("bench").metrics(meters.metrics("bench")).buildQueue();
			meters.bindGauges("bench", this.queue);
		}

	}

}
