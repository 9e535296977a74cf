package dev.workqueue.benchmarks;

import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import dev.workqueue.spring.observation.MicrometerWorkObservations;
import dev.workqueue.spring.worker.WorkObservations;
import dev.workqueue.spring.worker.WorkOutcome;
import dev.workqueue.spring.worker.WorkerEndpoint;

/**
 * Issue 13: what the {@code workqueue.process} observation costs a worker per item: the
 * {@code begin} before the method and the {@code end} after its outcome, as a worker
 * thread runs them, on one thread and without the queue.
 * <ul>
 * <li>{@code off}: {@code workqueue.observation.enabled=false}, or no
 * {@code ObservationRegistry} bean;</li>
 * <li>{@code noHandlers}: a registry without handlers (one check, nothing created);</li>
 * <li>{@code meters}: Micrometer's meter handler on a {@link SimpleMeterRegistry}: a
 * {@code workqueue.process} timer and long task timer per item, as Boot with the Actuator
 * and no tracing sets it up;</li>
 * <li>{@code metersAndTracing}: the same plus Micrometer Tracing's handler on the no-op
 * tracer: the observation and span plumbing without a tracing library or exporter (a real
 * tracer adds its own span cost).</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@State(Scope.Thread)
public class ObservationBenchmark {

	@Param({ "off", "noHandlers", "meters", "metersAndTracing" })
	public String setup;

	private WorkObservations observations;

	private WorkerEndpoint endpoint;

	private final String[] items = Keys.distinct(1024);

	private int next;

	@Setup
	public void open() throws NoSuchMethodException {
		Method method = ObservationBenchmark.class.getDeclaredMethod("work", String.class);
		this.endpoint = new WorkerEndpoint("bench#work", this, method, "bench", null);
		this.observations = switch (this.setup) {
			case "off" -> WorkObservations.NONE;
			case "noHandlers" -> new MicrometerWorkObservations(ObservationRegistry.create(), null);
			case "meters" -> new MicrometerWorkObservations(metered(), null);
			case "metersAndTracing" -> {
				ObservationRegistry registry = metered();
				registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(Tracer.NOOP));
				yield new MicrometerWorkObservations(registry, null);
			}
			default -> throw new IllegalArgumentException("setup " + this.setup);
		};
	}

	private static ObservationRegistry metered() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
		return registry;
	}

	@Benchmark
	public void observeOneItem() {
		String item = this.items[this.next++ & 1023];
		WorkObservations.Work work = this.observations.begin(this.endpoint, item);
		work.end(WorkOutcome.DONE, null);
	}

	void work(String item) {
	}

}
