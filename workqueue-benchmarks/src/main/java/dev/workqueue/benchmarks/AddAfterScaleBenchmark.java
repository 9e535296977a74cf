package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueues;

/**
 * Issue 28: W3's {@code addAfter} workload at two sizes, 100,000 and 1,000,000 items
 * waiting at the end of a batch, to show whether the cost of making an item wait grows
 * with the items already waiting. Ours beside the JDK's {@link DelayQueue} (with a
 * minimal {@link DelayedItem} wrapper, no dedup), whose cost barely grows: the figure is
 * our rate as a fraction of the JDK's in the same run.
 * <p>
 * One invocation adds 100,000 or 1,000,000 distinct items with delays spread over 60
 * seconds into a fresh queue, as {@link AddAfterBenchmark} does: ours then adds one item
 * due at once and ends when it comes out of {@code get}; the teardowns check that exactly
 * the batch waits. The delays start at 10 seconds, not W3's 1: on a loaded machine a
 * batch of a million can take over a second, and items would then come due inside the
 * batch (the run fails rather than measure that). Methods are
 * {@code waiting<size>_<contender>}: the batch is a constant per method because JMH's
 * operations per invocation are. The score is items per microsecond over the whole batch,
 * so a resize or a collection during the batch is inside it.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = { "-Xms4g", "-Xmx4g" })
public class AddAfterScaleBenchmark {

	static final int SMALL = 100_000;

	static final int LARGE = 1_000_000;

	static final String[] KEYS = Keys.distinct(LARGE);

	static final Duration[] DELAYS = Keys.delays(LARGE, Duration.ofSeconds(10), Duration.ofSeconds(70));

	static final long[] DELAY_NANOS = Keys.nanos(DELAYS);

	@Benchmark
	@OperationsPerInvocation(SMALL)
	public String waiting100k_ours(Ours state) throws InterruptedException {
		return ours(state, SMALL);
	}

	@Benchmark
	@OperationsPerInvocation(SMALL)
	public DelayQueue<DelayedItem<String>> waiting100k_jdkDelayQueue(Jdk state) {
		return jdk(state, SMALL);
	}

	@Benchmark
	@OperationsPerInvocation(LARGE)
	public String waiting1m_ours(Ours state) throws InterruptedException {
		return ours(state, LARGE);
	}

	@Benchmark
	@OperationsPerInvocation(LARGE)
	public DelayQueue<DelayedItem<String>> waiting1m_jdkDelayQueue(Jdk state) {
		return jdk(state, LARGE);
	}

	private static String ours(Ours state, int count) throws InterruptedException {
		DelayingQueue<String> queue = state.queue;
		for (int i = 0; i < count; i++) {
			queue.addAfter(KEYS[i], DELAYS[i]);
		}
		queue.addAfter(AddAfterBenchmark.LAST, AddAfterBenchmark.AT_ONCE);
		state.out = queue.get();
		state.count = count;
		return state.out;
	}

	private static DelayQueue<DelayedItem<String>> jdk(Jdk state, int count) {
		DelayQueue<DelayedItem<String>> queue = state.queue;
		for (int i = 0; i < count; i++) {
			queue.offer(DelayedItem.in(KEYS[i], DELAY_NANOS[i]));
		}
		state.count = count;
		return queue;
	}

	/**
	 * Fails unless exactly {@code expected} items wait.
	 * @param waiting the number of waiting items
	 * @param expected the batch
	 */
	static void checkWaiting(int waiting, int expected) {
		if (waiting != expected) {
			throw new IllegalStateException("expected " + expected + " waiting items, found " + waiting);
		}
	}

	/** Our delaying queue. */
	@State(Scope.Thread)
	public static class Ours {

		DelayingQueue<String> queue;

		String out;

		int count;

		@Setup(Level.Invocation)
		public void open() throws InterruptedException {
			this.queue = WorkQueues.<String>builder().name("bench").buildDelayingQueue();
			this.queue.addAfter(AddAfterBenchmark.LAST, AddAfterBenchmark.AT_ONCE);
			this.queue.done(this.queue.get());
		}

		@TearDown(Level.Invocation)
		public void close() {
			try {
				if (!AddAfterBenchmark.LAST.equals(this.out)) {
					throw new IllegalStateException("an item fired during the batch: it took over ten seconds");
				}
				checkWaiting(this.queue.stats().waiting(), this.count);
			}
			finally {
				this.queue.shutDown();
			}
		}

	}

	/** The JDK's delay queue. */
	@State(Scope.Thread)
	public static class Jdk {

		DelayQueue<DelayedItem<String>> queue;

		int count;

		@Setup(Level.Invocation)
		public void open() {
			this.queue = new DelayQueue<>();
		}

		@TearDown(Level.Invocation)
		public void close() {
			checkWaiting(this.queue.size(), this.count);
		}

	}

}
