package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import dev.workqueue.delay.DelayQueue;

/**
 * Issue 3, delay queue: our {@link DelayQueue} beside the JDK's
 * {@link java.util.concurrent.DelayQueue} holding a minimal {@link DelayedItem} wrapper.
 * <ul>
 * <li>{@code pushTake}: the seed's Go benchmark, one thread: push {@value #BATCH} values,
 * value {@code i} due in {@code i} nanoseconds, then take them all; the score is per
 * value (push plus take). The Go queue reported 476.8 ns/op on its author's machine (not
 * this one). Unlike Go's, the pushes are not followed by an unmeasured sleep, so a take
 * may wait for its value: at most {@value #BATCH} ns in all, under 1 ns per value.</li>
 * <li>{@code handOff}: one producer pushes values due at once, one consumer takes them
 * (workload and backlog bound of {@link HandOffQueue}); read the {@code ...Consume}
 * rows.</li>
 * <li>{@code reschedule} and {@code cancel} at 10,000 and 1,000,000 pending values
 * (delays of 1 to 60 s, nothing fires): an O(log n) operation costs little more at the
 * larger size. {@code cancel} cancels a value and pushes a new one, so the size stays
 * put; the JDK does it with {@code remove(Object)}, a linear search, and
 * {@code offer}.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = { "-Xms2g", "-Xmx2g" })
public class DelayQueueBenchmark {

	static final int BATCH = 100_000;

	static final Integer[] VALUES = Keys.indexes(BATCH);

	/** Value {@code i} is due in {@code i} nanoseconds, as in the Go benchmark. */
	static final Duration[] RAMP = rampOfNanos(BATCH);

	@Benchmark
	@OperationsPerInvocation(BATCH)
	public Integer pushTake_ours(OursQueue state) throws InterruptedException {
		DelayQueue<Integer> queue = state.queue;
		for (int i = 0; i < BATCH; i++) {
			queue.push(VALUES[i], RAMP[i]);
		}
		Integer value = null;
		for (int i = 0; i < BATCH; i++) {
			value = queue.take();
		}
		return value;
	}

	@Benchmark
	@OperationsPerInvocation(BATCH)
	public Integer pushTake_jdk(JdkQueue state) throws InterruptedException {
		java.util.concurrent.DelayQueue<DelayedItem<Integer>> queue = state.queue;
		for (int i = 0; i < BATCH; i++) {
			queue.offer(DelayedItem.in(VALUES[i], i));
		}
		Integer value = null;
		for (int i = 0; i < BATCH; i++) {
			value = queue.take().item;
		}
		return value;
	}

	@Benchmark
	@BenchmarkMode(Mode.Throughput)
	@OutputTimeUnit(TimeUnit.MICROSECONDS)
	@Fork(value = 3, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
	@Group("handOff_ours")
	@GroupThreads(1)
	public void handOffOursProduce(OursHandOff queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@BenchmarkMode(Mode.Throughput)
	@OutputTimeUnit(TimeUnit.MICROSECONDS)
	@Fork(value = 3, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
	@Group("handOff_ours")
	@GroupThreads(1)
	public String handOffOursConsume(OursHandOff queue, HandOffQueue.Consumer consumer) throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	@BenchmarkMode(Mode.Throughput)
	@OutputTimeUnit(TimeUnit.MICROSECONDS)
	@Fork(value = 3, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
	@Group("handOff_jdk")
	@GroupThreads(1)
	public void handOffJdkProduce(JdkHandOff queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@BenchmarkMode(Mode.Throughput)
	@OutputTimeUnit(TimeUnit.MICROSECONDS)
	@Fork(value = 3, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
	@Group("handOff_jdk")
	@GroupThreads(1)
	public String handOffJdkConsume(JdkHandOff queue, HandOffQueue.Consumer consumer) throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	public boolean reschedule_ours(OursPending state) {
		int i = state.next();
		return state.entries[i].reschedule(state.delays[state.delays.length - 1 - i]);
	}

	@Benchmark
	public DelayQueue.Entry<Integer> cancel_ours(OursPending state) {
		int i = state.next();
		state.entries[i].cancel();
		return state.entries[i] = state.queue.push(state.values[i], state.delays[state.delays.length - 1 - i]);
	}

	@Benchmark
	public boolean cancel_jdk(JdkPending state) {
		int i = state.next();
		state.queue.remove(state.items[i]);
		state.items[i] = DelayedItem.in(state.values[i], state.delayNanos[state.delayNanos.length - 1 - i]);
		return state.queue.offer(state.items[i]);
	}

	private static Duration[] rampOfNanos(int count) {
		Duration[] ramp = new Duration[count];
		for (int i = 0; i < count; i++) {
			ramp[i] = Duration.ofNanos(i);
		}
		return ramp;
	}

	/** Our delay queue, emptied by every invocation. */
	@State(Scope.Thread)
	public static class OursQueue {

		final DelayQueue<Integer> queue = new DelayQueue<>();

	}

	/** The JDK's delay queue, emptied by every invocation. */
	@State(Scope.Thread)
	public static class JdkQueue {

		final java.util.concurrent.DelayQueue<DelayedItem<Integer>> queue = new java.util.concurrent.DelayQueue<>();

	}

	/** Values pending in a queue, and which one the next operation touches. */
	@State(Scope.Thread)
	public abstract static class Pending {

		@Param({ "10000", "1000000" })
		public int pending;

		Integer[] values;

		Duration[] delays;

		long[] delayNanos;

		private int next;

		@Setup(Level.Trial)
		public void open() {
			this.values = Keys.indexes(this.pending);
			this.delays = Keys.delays(this.pending, Duration.ofSeconds(1), Duration.ofSeconds(60));
			this.delayNanos = Keys.nanos(this.delays);
			fill();
		}

		abstract void fill();

		final int next() {
			int i = this.next;
			if (++this.next == this.pending) {
				this.next = 0;
			}
			return i;
		}

	}

	/** Our delay queue holding {@code pending} values. */
	@State(Scope.Thread)
	public static class OursPending extends Pending {

		final DelayQueue<Integer> queue = new DelayQueue<>();

		DelayQueue.Entry<Integer>[] entries;

		@Override
		@SuppressWarnings("unchecked")
		void fill() {
			this.entries = (DelayQueue.Entry<Integer>[]) new DelayQueue.Entry<?>[this.pending];
			for (int i = 0; i < this.pending; i++) {
				this.entries[i] = this.queue.push(this.values[i], this.delays[i]);
			}
		}

	}

	/** The JDK's delay queue holding {@code pending} values. */
	@State(Scope.Thread)
	public static class JdkPending extends Pending {

		final java.util.concurrent.DelayQueue<DelayedItem<Integer>> queue = new java.util.concurrent.DelayQueue<>();

		DelayedItem<Integer>[] items;

		@Override
		@SuppressWarnings("unchecked")
		void fill() {
			this.items = (DelayedItem<Integer>[]) new DelayedItem<?>[this.pending];
			for (int i = 0; i < this.pending; i++) {
				this.items[i] = DelayedItem.in(this.values[i], this.delayNanos[i]);
				this.queue.offer(this.items[i]);
			}
		}

	}

	/** Our delay queue in the hand-off: pushes due at once, blocking takes. */
	@State(Scope.Group)
	public static class OursHandOff extends HandOffQueue {

		private DelayQueue<String> queue;

		@Override
		void start() {
			this.queue = new DelayQueue<>();
		}

		@Override
		void put(String item) {
			this.queue.push(item, Duration.ZERO);
		}

		@Override
		String take() throws InterruptedException {
			return released() ? this.queue.poll(Duration.ZERO) : this.queue.take();
		}

		@Override
		void release() {
			poisonConsumers();
		}

		@Override
		void stop() {
		}

	}

	/** The JDK's delay queue in the hand-off. */
	@State(Scope.Group)
	public static class JdkHandOff extends HandOffQueue {

		private java.util.concurrent.DelayQueue<DelayedItem<String>> queue;

		@Override
		void start() {
			this.queue = new java.util.concurrent.DelayQueue<>();
		}

		@Override
		void put(String item) {
			this.queue.offer(DelayedItem.in(item, 0));
		}

		@Override
		String take() throws InterruptedException {
			DelayedItem<String> item = released() ? this.queue.poll() : this.queue.take();
			return (item != null) ? item.item : null;
		}

		@Override
		void release() {
			poisonConsumers();
		}

		@Override
		void stop() {
		}

	}

}
