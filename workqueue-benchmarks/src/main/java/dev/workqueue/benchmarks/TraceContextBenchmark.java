package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import brave.Tracing;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.sampler.Sampler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.brave.bridge.W3CPropagation;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.spring.observation.DefaultWorkItemObservationConvention;
import dev.workqueue.spring.observation.PropagatorTraceContextSource;
import dev.workqueue.spring.observation.WorkItemObservationContext;
import dev.workqueue.spring.observation.WorkItemTracingObservationHandler;
import dev.workqueue.spring.observation.WorkQueueObservationDocumentation;

/**
 * Issue 31: what carrying trace context costs, on one thread.
 * <ul>
 * <li>{@code cycle}: W1a's add, poll and done of a key not queued, through a worker's
 * poller, on an in-memory queue built without a source ({@code none}), with a source that
 * finds no span ({@code noSpan}: what every add costs in an application with a tracer but
 * no current span), and with one that always gives a W3C context ({@code context}: the
 * queue's own cost of storing it and handing it out, without the tracer's).</li>
 * <li>{@code capture}: the starter's source with Brave (W3C propagation) in a span: the
 * tracer's share of each add.</li>
 * <li>{@code processSpan}: the {@code workqueue.process} observation of one item on
 * Brave, started and stopped, with no stored context ({@code links=-1}: Micrometer's own
 * handler), or with a parent and {@code links} links: the worker's share per item. Spans
 * are sampled and dropped, not reported.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
public class TraceContextBenchmark {

	/** A W3C context as the starter stores it. */
	static final String CONTEXT = "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

	/** The queue cycle with each kind of source. */
	@State(Scope.Thread)
	public static class Cycle {

		private static final int KEYS = 1 << 16;

		@Param({ "none", "noSpan", "context" })
		public String source;

		private final String[] keys = Keys.distinct(KEYS);

		private int next;

		private WorkQueue<String> queue;

		private Poller<String> poller;

		@Setup(Level.Trial)
		public void open() {
			TraceContextSource source = switch (this.source) {
				case "none" -> null;
				case "noSpan" -> () -> null;
				case "context" -> () -> CONTEXT;
				default -> throw new IllegalArgumentException("source " + this.source);
			};
			this.queue = WorkQueues.<String>builder().name("bench").traceContextSource(source).buildQueue();
			this.poller = Pollers.of(this.queue);
		}

		@TearDown(Level.Trial)
		public void close() {
			this.queue.shutDown();
		}

	}

	/** A Brave tracer with W3C propagation, sampling everything, reporting nothing. */
	@State(Scope.Thread)
	public static class Brave {

		@Param({ "-1", "0", "8" })
		public int links;

		Tracing tracing;

		Tracer tracer;

		Propagator propagator;

		ObservationRegistry registry;

		TraceContextSource source;

		Span span;

		Tracer.SpanInScope scope;

		ItemTrace trace;

		@Setup(Level.Trial)
		public void open() {
			this.tracing = Tracing.newBuilder()
				.sampler(Sampler.ALWAYS_SAMPLE)
				.currentTraceContext(ThreadLocalCurrentTraceContext.create())
				.propagationFactory(new W3CPropagation(new BraveBaggageManager(), List.of()))
				.build();
			this.tracer = new BraveTracer(this.tracing.tracer(),
					new BraveCurrentTraceContext(this.tracing.currentTraceContext()), new BraveBaggageManager());
			this.propagator = new BravePropagator(this.tracing);
			this.registry = ObservationRegistry.create();
			this.registry.observationConfig()
				.observationHandler(new FirstMatchingCompositeObservationHandler(
						new WorkItemTracingObservationHandler(this.tracer, this.propagator),
						new DefaultTracingObservationHandler(this.tracer)));
			this.source = new PropagatorTraceContextSource(this.tracer, this.propagator);
			this.span = this.tracer.nextSpan().name("request").start();
			this.scope = this.tracer.withSpan(this.span);
			List<String> contexts = new ArrayList<>();
			for (int i = 0; i < Math.max(0, this.links); i++) {
				contexts.add(this.source.currentContext());
			}
			this.trace = (this.links < 0) ? null : new ItemTrace(this.source.currentContext(), contexts);
			this.scope.close();
		}

		@TearDown(Level.Trial)
		public void close() {
			this.span.end();
			this.tracing.close();
		}

	}

	@Benchmark
	public Object cycle(Cycle state) throws InterruptedException {
		String key = state.keys[state.next];
		state.next = (state.next + 1) & (Cycle.KEYS - 1);
		state.queue.add(key);
		Prioritized<String> item = state.poller.poll(Duration.ZERO);
		state.queue.done(item.item());
		return state.poller.trace();
	}

	@Benchmark
	public String capture(Brave state) {
		try (Tracer.SpanInScope scope = state.tracer.withSpan(state.span)) {
			return state.source.currentContext();
		}
	}

	@Benchmark
	public void processSpan(Brave state) {
		WorkItemObservationContext context = new WorkItemObservationContext("bench", "bench#work", "item", state.trace);
		Observation observation = WorkQueueObservationDocumentation.PROCESS
			.observation(null, DefaultWorkItemObservationConvention.INSTANCE, () -> context, state.registry)
			.start();
		observation.stop();
	}

}
