package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

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
 * W3: {@code addAfter} of distinct items with delays of 1 to 60 seconds, so that nothing
 * fires: the cost of making items wait.
 * <p>
 * One invocation adds {@value #BATCH} items to a fresh, idle queue that has handed out
 * one item already, then waits until the queue has taken all of them in: for the delaying
 * queues (ours, client-java's, which hands entries to a waiting thread) one more item due
 * at once follows the batch, and the invocation ends when it comes out of {@code get}, so
 * any waiting thread's work is inside the measurement, not left behind it. The teardown
 * checks that exactly {@value #BATCH} items wait (none fired, none dropped) and fails the
 * run otherwise.
 * <p>
 * Contenders: our {@link DelayingQueue}; client-java's {@code DefaultDelayingQueue},
 * paced so that its 1,000-slot hand-off never overflows (see {@link PacedDelayingQueue};
 * unpaced it drops most items); the JDK's {@link DelayQueue#offer} with a minimal
 * {@link DelayedItem} wrapper (no dedup).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(AddAfterBenchmark.BATCH)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = { "-Xms2g", "-Xmx2g" })
public class AddAfterBenchmark {

	static final int BATCH = 100_000;

	static final String[] KEYS = Keys.distinct(BATCH);

	static final Duration[] DELAYS = Keys.delays(BATCH, Duration.ofSeconds(1), Duration.ofSeconds(60));

	static final long[] DELAY_NANOS = Keys.nanos(DELAYS);

	/** The item that follows a batch; never one of {@link #KEYS}. */
	static final String LAST = "last";

	static final Duration AT_ONCE = Duration.ofNanos(1);

	@Benchmark
	public String ours(Ours state) throws InterruptedException {
		DelayingQueue<String> queue = state.queue;
		for (int i = 0; i < BATCH; i++) {
			queue.addAfter(KEYS[i], DELAYS[i]);
		}
		queue.addAfter(LAST, AT_ONCE);
		state.out = queue.get();
		return state.out;
	}

	@Benchmark
	public String clientJava(ClientJava state) throws InterruptedException {
		PacedDelayingQueue<String> queue = state.queue;
		for (int i = 0; i < BATCH; i++) {
			queue.addAfterPaced(KEYS[i], DELAYS[i]);
		}
		queue.addAfterPaced(LAST, AT_ONCE);
		state.out = queue.get();
		return state.out;
	}

	@Benchmark
	public DelayQueue<DelayedItem<String>> jdkDelayQueue(Jdk state) {
		DelayQueue<DelayedItem<String>> queue = state.queue;
		for (int i = 0; i < BATCH; i++) {
			queue.offer(DelayedItem.in(KEYS[i], DELAY_NANOS[i]));
		}
		return queue;
	}

	/**
	 * Fails unless the item out of {@code get} is {@link #LAST}: an earlier one means
	 * that an item fired during the batch, so the measurement would include firing.
	 * @param out the item the invocation got
	 */
	static void checkNothingFired(String out) {
		if (!LAST.equals(out)) {
			throw new IllegalStateException("an item fired during the batch: an invocation took over a second");
		}
	}

	/**
	 * Fails unless exactly {@value #BATCH} items wait. A waiting thread may publish its
	 * count just after handing out the last item, so a count above that is read again for
	 * up to a second.
	 * @param waiting reads the number of waiting items
	 */
	static void checkWaiting(IntSupplier waiting) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
		int count;
		while ((count = waiting.getAsInt()) > BATCH && System.nanoTime() < deadline) {
			Thread.yield();
		}
		if (count != BATCH) {
			throw new IllegalStateException("expected " + BATCH + " waiting items, found " + count);
		}
	}

	/** Our delaying queue, its waiting thread started. */
	@State(Scope.Thread)
	public static class Ours {

		DelayingQueue<String> queue;

		String out;

		@Setup(Level.Invocation)
		public void open() throws InterruptedException {
			this.queue = WorkQueues.<String>builder().name("bench").buildDelayingQueue();
			// Warms the queue as client-java's is (its constructor starts its thread).
			this.queue.addAfter(LAST, AT_ONCE);
			this.queue.done(this.queue.get());
		}

		@TearDown(Level.Invocation)
		public void close() {
			try {
				checkNothingFired(this.out);
				checkWaiting(() -> this.queue.stats().waiting());
			}
			finally {
				this.queue.shutDown();
			}
		}

	}

	/** client-java's delaying queue, paced. */
	@State(Scope.Thread)
	public static class ClientJava {

		PacedDelayingQueue<String> queue;

		String out;

		@Setup(Level.Invocation)
		public void open() {
			this.queue = PacedDelayingQueue.start();
		}

		@TearDown(Level.Invocation)
		public void close() {
			try {
				checkNothingFired(this.out);
				checkWaiting(this.queue::waitingItems);
			}
			finally {
				this.queue.close();
			}
		}

	}

	/** The JDK's delay queue. */
	@State(Scope.Thread)
	public static class Jdk {

		DelayQueue<DelayedItem<String>> queue;

		@Setup(Level.Invocation)
		public void open() {
			this.queue = new DelayQueue<>();
		}

		@TearDown(Level.Invocation)
		public void close() {
			checkWaiting(this.queue::size);
		}

	}

}
