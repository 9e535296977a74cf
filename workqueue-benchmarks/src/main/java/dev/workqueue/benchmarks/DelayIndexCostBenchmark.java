package dev.workqueue.benchmarks;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
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

import dev.workqueue.internal.ItemTable;
import dev.workqueue.internal.KeyedEntry;

/**
 * Issue 39, item 4: what an index from item to entry costs the fill of
 * {@link AddAfterScaleBenchmark}, measured on the JDK's own {@link DelayQueue} so that
 * nothing of our engine is in it. {@code jdkDelayQueue} is that benchmark's peer, the
 * same code; {@code jdkWithHashMap} also puts each entry into a {@link HashMap} first, as
 * a user of the JDK who wants client-go's dedup (one entry per item) writes it;
 * {@code jdkWithItemTable} puts it into our {@link ItemTable} instead, the index of our
 * queue. The same keys, delays and fresh containers per invocation as
 * {@link AddAfterScaleBenchmark}, so that growth counts; a ratio to {@code jdkDelayQueue}
 * in the same run is the ceiling of any queue that keeps such an index at that size on
 * this machine.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = { "-Xms4g", "-Xmx4g" })
public class DelayIndexCostBenchmark {

	@Benchmark
	@OperationsPerInvocation(AddAfterScaleBenchmark.SMALL)
	public DelayQueue<DelayedItem<String>> waiting100k_jdkDelayQueue(Contenders state) {
		return plain(state, AddAfterScaleBenchmark.SMALL);
	}

	@Benchmark
	@OperationsPerInvocation(AddAfterScaleBenchmark.SMALL)
	public DelayQueue<IndexedItem<String>> waiting100k_jdkWithHashMap(Contenders state) {
		return withHashMap(state, AddAfterScaleBenchmark.SMALL);
	}

	@Benchmark
	@OperationsPerInvocation(AddAfterScaleBenchmark.SMALL)
	public DelayQueue<IndexedItem<String>> waiting100k_jdkWithItemTable(Contenders state) {
		return withItemTable(state, AddAfterScaleBenchmark.SMALL);
	}

	@Benchmark
	@OperationsPerInvocation(AddAfterScaleBenchmark.LARGE)
	public DelayQueue<DelayedItem<String>> waiting1m_jdkDelayQueue(Contenders state) {
		return plain(state, AddAfterScaleBenchmark.LARGE);
	}

	@Benchmark
	@OperationsPerInvocation(AddAfterScaleBenchmark.LARGE)
	public DelayQueue<IndexedItem<String>> waiting1m_jdkWithHashMap(Contenders state) {
		return withHashMap(state, AddAfterScaleBenchmark.LARGE);
	}

	@Benchmark
	@OperationsPerInvocation(AddAfterScaleBenchmark.LARGE)
	public DelayQueue<IndexedItem<String>> waiting1m_jdkWithItemTable(Contenders state) {
		return withItemTable(state, AddAfterScaleBenchmark.LARGE);
	}

	private static DelayQueue<DelayedItem<String>> plain(Contenders state, int count) {
		DelayQueue<DelayedItem<String>> queue = state.plain;
		for (int i = 0; i < count; i++) {
			queue.offer(DelayedItem.in(AddAfterScaleBenchmark.KEYS[i], AddAfterScaleBenchmark.DELAY_NANOS[i]));
		}
		state.count = count;
		return queue;
	}

	private static DelayQueue<IndexedItem<String>> withHashMap(Contenders state, int count) {
		DelayQueue<IndexedItem<String>> queue = state.queue;
		Map<String, IndexedItem<String>> index = state.map;
		for (int i = 0; i < count; i++) {
			String key = AddAfterScaleBenchmark.KEYS[i];
			IndexedItem<String> entry = IndexedItem.in(key, AddAfterScaleBenchmark.DELAY_NANOS[i]);
			if (index.putIfAbsent(key, entry) == null) {
				queue.offer(entry);
			}
		}
		state.count = count;
		return queue;
	}

	private static DelayQueue<IndexedItem<String>> withItemTable(Contenders state, int count) {
		DelayQueue<IndexedItem<String>> queue = state.queue;
		ItemTable<String, IndexedItem<String>> index = state.table;
		for (int i = 0; i < count; i++) {
			IndexedItem<String> entry = IndexedItem.in(AddAfterScaleBenchmark.KEYS[i],
					AddAfterScaleBenchmark.DELAY_NANOS[i]);
			if (index.putIfAbsent(entry) == null) {
				queue.offer(entry);
			}
		}
		state.count = count;
		return queue;
	}

	/**
	 * {@link DelayedItem} that an {@link ItemTable} can hold: the item, its hash code and
	 * its due time, 32 bytes with compressed oops (8 more than {@link DelayedItem}).
	 *
	 * @param <T> the item type
	 */
	static final class IndexedItem<T> extends KeyedEntry<T> implements Delayed {

		final long dueNanos;

		IndexedItem(T item, long dueNanos) {
			super(item);
			this.dueNanos = dueNanos;
		}

		static <T> IndexedItem<T> in(T item, long delayNanos) {
			return new IndexedItem<>(item, System.nanoTime() + delayNanos);
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return unit.convert(this.dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
		}

		@Override
		public int compareTo(Delayed other) {
			return Long.compare(this.dueNanos, ((IndexedItem<?>) other).dueNanos);
		}

	}

	/**
	 * Fresh queues and indexes per invocation; each method fills one queue and at most
	 * one index.
	 */
	@State(Scope.Thread)
	public static class Contenders {

		DelayQueue<DelayedItem<String>> plain;

		DelayQueue<IndexedItem<String>> queue;

		Map<String, IndexedItem<String>> map;

		ItemTable<String, IndexedItem<String>> table;

		int count;

		@Setup(Level.Invocation)
		public void open() {
			this.plain = new DelayQueue<>();
			this.queue = new DelayQueue<>();
			this.map = new HashMap<>();
			this.table = new ItemTable<>();
		}

		@TearDown(Level.Invocation)
		public void close() {
			AddAfterScaleBenchmark.checkWaiting(this.plain.size() + this.queue.size(), this.count);
		}

	}

}
