package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.util.HashedWheelTimer;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jol.vm.VM;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.delay.DelayQueue;
import dev.workqueue.timer.TimingWheel;

/**
 * W3 and issue 3: retained heap per waiting item with {@value #ITEMS} items waiting,
 * measured with JOL.
 * <p>
 * Each contender is built and settled (its thread started, its hand-off drained), and the
 * object graph reachable from it is sized (see {@link Footprint}: JOL's sizes, the walk
 * stopping at threads, class loaders and classes). Then {@value #ITEMS} distinct keys are
 * scheduled with delays of 1 to 60 minutes (so that nothing fires during the slow walk),
 * the contender is settled again (an item due at once goes through and out) and the graph
 * is sized again. The figure, {@code bytesPerItem}, is the growth less the keys
 * themselves (each {@link String} key with its bytes, sized the same way: they are the
 * user's objects, identical for everyone), divided by {@value #ITEMS}. Everything a
 * contender allocates per item counts: entries, wrappers, tasks, heap and map slots;
 * dedup maps included. Fixed parts (locks, executors, empty wheels) are in both sizes and
 * cancel out.
 * <p>
 * Contenders: delaying queues (ours; client-java's, paced; the JDK's
 * {@link java.util.concurrent.DelayQueue} with a minimal {@link DelayedItem}, no dedup),
 * timing wheels (ours; Netty's, with a task per timeout that knows its key), and our
 * {@link DelayQueue}. The primary score means nothing.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(value = 1,
		jvmArgsAppend = { "-Xms6g", "-Xmx6g", "-Djdk.attach.allowAttachSelf=true", "-Djol.magicFieldOffset=true" })
public class RetainedHeapBenchmark {

	static final int ITEMS = 1_000_000;

	static final String[] KEYS = Keys.distinct(ITEMS);

	static final Duration[] DELAYS = Keys.delays(ITEMS, Duration.ofMinutes(1), Duration.ofMinutes(60));

	static final long[] DELAY_NANOS = Keys.nanos(DELAYS);

	/** The keys' own size: the array's graph less the array. */
	static final long KEYS_BYTES = Footprint.bytes(KEYS) - VM.current().sizeOf(KEYS);

	static final String LAST = "last";

	static final Duration AT_ONCE = Duration.ofNanos(1);

	static final Duration TICK = Duration.ofMillis(1);

	static final int SLOTS = 512;

	@Benchmark
	public void delayingQueue_ours(OursDelaying contender, Heap heap, BenchmarkParams params)
			throws InterruptedException {
		contender.measure(heap, params);
	}

	@Benchmark
	public void delayingQueue_clientJava(ClientJavaDelaying contender, Heap heap, BenchmarkParams params)
			throws InterruptedException {
		contender.measure(heap, params);
	}

	@Benchmark
	public void delayingQueue_jdkDelayQueue(JdkDelayQueue contender, Heap heap, BenchmarkParams params)
			throws InterruptedException {
		contender.measure(heap, params);
	}

	@Benchmark
	public void timingWheel_ours(OursWheel contender, Heap heap, BenchmarkParams params) throws InterruptedException {
		contender.measure(heap, params);
	}

	@Benchmark
	public void timingWheel_netty(NettyWheel contender, Heap heap, BenchmarkParams params) throws InterruptedException {
		contender.measure(heap, params);
	}

	@Benchmark
	public void delayQueue_ours(OursDelayQueue contender, Heap heap, BenchmarkParams params)
			throws InterruptedException {
		contender.measure(heap, params);
	}

	/** Retained bytes per waiting item. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Heap {

		public double bytesPerItem;

	}

	/** One contender, fresh for each iteration. */
	public abstract static class Contender {

		@Setup(Level.Iteration)
		public void open() throws InterruptedException {
			start();
			settle();
		}

		@TearDown(Level.Iteration)
		public void close() {
			stop();
		}

		final void measure(Heap heap, BenchmarkParams params) throws InterruptedException {
			long emptyBytes = Footprint.bytes(root());
			fill();
			settle();
			long fullBytes = Footprint.bytes(root());
			heap.bytesPerItem = (double) (fullBytes - emptyBytes - KEYS_BYTES) / ITEMS * Figures.share(params);
		}

		abstract void start();

		/** Schedules every key. */
		abstract void fill();

		/**
		 * Returns once everything scheduled so far has been taken in by the contender.
		 */
		abstract void settle() throws InterruptedException;

		/** The object whose reachable graph is sized. */
		abstract Object root();

		abstract void stop();

	}

	/** Our delaying queue. */
	@State(Scope.Thread)
	public static class OursDelaying extends Contender {

		private DelayingQueue<String> queue;

		@Override
		void start() {
			this.queue = WorkQueues.<String>builder().name("heap").buildDelayingQueue();
		}

		@Override
		void fill() {
			for (int i = 0; i < ITEMS; i++) {
				this.queue.addAfter(KEYS[i], DELAYS[i]);
			}
		}

		@Override
		void settle() throws InterruptedException {
			this.queue.addAfter(LAST, AT_ONCE);
			this.queue.done(this.queue.get());
		}

		@Override
		Object root() {
			return this.queue;
		}

		@Override
		void stop() {
			this.queue.shutDown();
		}

	}

	/** client-java's delaying queue, paced. */
	@State(Scope.Thread)
	public static class ClientJavaDelaying extends Contender {

		private PacedDelayingQueue<String> queue;

		@Override
		void start() {
			this.queue = PacedDelayingQueue.start();
		}

		@Override
		void fill() {
			for (int i = 0; i < ITEMS; i++) {
				this.queue.addAfterPaced(KEYS[i], DELAYS[i]);
			}
		}

		@Override
		void settle() throws InterruptedException {
			this.queue.addAfterPaced(LAST, AT_ONCE);
			this.queue.done(this.queue.get());
		}

		@Override
		Object root() {
			return this.queue;
		}

		@Override
		void stop() {
			this.queue.close();
		}

	}

	/** The JDK's delay queue with a minimal wrapper per item. */
	@State(Scope.Thread)
	public static class JdkDelayQueue extends Contender {

		private java.util.concurrent.DelayQueue<DelayedItem<String>> queue;

		@Override
		void start() {
			this.queue = new java.util.concurrent.DelayQueue<>();
		}

		@Override
		void fill() {
			for (int i = 0; i < ITEMS; i++) {
				this.queue.offer(DelayedItem.in(KEYS[i], DELAY_NANOS[i]));
			}
		}

		@Override
		void settle() throws InterruptedException {
			this.queue.offer(DelayedItem.in(LAST, 0));
			this.queue.take();
		}

		@Override
		Object root() {
			return this.queue;
		}

		@Override
		void stop() {
		}

	}

	/** Our timing wheel. */
	@State(Scope.Thread)
	public static class OursWheel extends Contender {

		private TimingWheel<String, Object> wheel;

		private volatile CountDownLatch lastFired;

		@Override
		void start() {
			this.wheel = new TimingWheel<>(TICK, SLOTS, (key, value) -> {
				if (key == LAST) {
					this.lastFired.countDown();
				}
			});
		}

		@Override
		void fill() {
			for (int i = 0; i < ITEMS; i++) {
				this.wheel.setTimer(KEYS[i], Boolean.TRUE, DELAYS[i]);
			}
		}

		@Override
		void settle() throws InterruptedException {
			CountDownLatch latch = new CountDownLatch(1);
			this.lastFired = latch;
			this.wheel.setTimer(LAST, Boolean.TRUE, Duration.ZERO);
			latch.await();
		}

		@Override
		Object root() {
			return this.wheel;
		}

		@Override
		void stop() {
			this.wheel.stop();
		}

	}

	/** Netty's wheel, a task per timeout. */
	@State(Scope.Thread)
	public static class NettyWheel extends Contender {

		private HashedWheelTimer timer;

		@Override
		void start() {
			this.timer = new HashedWheelTimer(new DaemonThreads("netty-wheel"), TICK.toNanos(), TimeUnit.NANOSECONDS,
					SLOTS);
			this.timer.start();
		}

		@Override
		void fill() {
			for (int i = 0; i < ITEMS; i++) {
				this.timer.newTimeout(new KeyTask(KEYS[i]), DELAY_NANOS[i], TimeUnit.NANOSECONDS);
			}
		}

		@Override
		void settle() throws InterruptedException {
			CountDownLatch latch = new CountDownLatch(1);
			this.timer.newTimeout((timeout) -> latch.countDown(), 0, TimeUnit.NANOSECONDS);
			latch.await();
		}

		@Override
		Object root() {
			return this.timer;
		}

		@Override
		void stop() {
			this.timer.stop();
		}

	}

	/** Our delay queue. */
	@State(Scope.Thread)
	public static class OursDelayQueue extends Contender {

		private DelayQueue<String> queue;

		@Override
		void start() {
			this.queue = new DelayQueue<>();
		}

		@Override
		void fill() {
			for (int i = 0; i < ITEMS; i++) {
				this.queue.push(KEYS[i], DELAYS[i]);
			}
		}

		@Override
		void settle() throws InterruptedException {
			this.queue.push(LAST, Duration.ZERO);
			this.queue.take();
		}

		@Override
		Object root() {
			return this.queue;
		}

		@Override
		void stop() {
		}

	}

}
