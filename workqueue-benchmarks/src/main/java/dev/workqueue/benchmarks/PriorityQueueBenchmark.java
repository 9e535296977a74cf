package dev.workqueue.benchmarks;

import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;

/**
 * Issue 21: what priorities cost. The add, get and done cycle of one thread (as W1a) and
 * the one-to-one hand-off (as W1b), our priority queue beside our plain queue (target: at
 * least 0.7 times its rate) and, for the hand-off, beside the JDK's
 * {@link PriorityBlockingQueue} with offer and take (target: at least its rate, while
 * doing dedup, the processing set and FIFO within a priority, which the JDK's does not).
 * <p>
 * Each item's priority is one of eight, from its key's hash, so that the priority queue
 * keeps eight levels busy; the JDK contender orders by (priority, sequence), so that it
 * keeps FIFO within a priority as ours does.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
public class PriorityQueueBenchmark {

	static int priorityOf(String item) {
		return item.hashCode() & 7;
	}

	@Benchmark
	public String cycle_oursPlain(Cycle cycle) throws InterruptedException {
		String key = cycle.nextKey();
		cycle.plain.add(key);
		String item = cycle.plain.get();
		cycle.plain.done(item);
		return item;
	}

	@Benchmark
	public String cycle_oursPriority(Cycle cycle) throws InterruptedException {
		String key = cycle.nextKey();
		cycle.priority.add(key, priorityOf(key));
		String item = cycle.priority.get();
		cycle.priority.done(item);
		return item;
	}

	@Benchmark
	@Group("oneToOne_oursPlain")
	@GroupThreads(1)
	public void oneToOnePlainProduce(QueueHandOffBenchmark.Ours queue, HandOffQueue.Producer producer,
			Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("oneToOne_oursPlain")
	@GroupThreads(1)
	public String oneToOnePlainConsume(QueueHandOffBenchmark.Ours queue, HandOffQueue.Consumer consumer)
			throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	@Group("oneToOne_oursPriority")
	@GroupThreads(1)
	public void oneToOnePriorityProduce(OursPriority queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("oneToOne_oursPriority")
	@GroupThreads(1)
	public String oneToOnePriorityConsume(OursPriority queue, HandOffQueue.Consumer consumer)
			throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	@Group("oneToOne_jdkPriorityBlockingQueue")
	@GroupThreads(1)
	public void oneToOneJdkProduce(JdkPriority queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("oneToOne_jdkPriorityBlockingQueue")
	@GroupThreads(1)
	public String oneToOneJdkConsume(JdkPriority queue, HandOffQueue.Consumer consumer) throws InterruptedException {
		return queue.consume(consumer);
	}

	/** One thread's queues for the cycle, and its keys. */
	@State(Scope.Thread)
	public static class Cycle {

		private static final int KEYS = 1 << 16;

		private final String[] keys = Keys.distinct(KEYS);

		private int next;

		WorkQueue<String> plain;

		PriorityQueue<String> priority;

		@Setup(Level.Trial)
		public void open() {
			this.plain = WorkQueues.<String>builder().name("bench").buildQueue();
			this.priority = WorkQueues.<String>builder()
				.name("bench")
				.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter());
		}

		@TearDown(Level.Trial)
		public void close() {
			this.plain.shutDown();
			this.priority.shutDown();
		}

		String nextKey() {
			String key = this.keys[this.next];
			this.next = (this.next + 1) & (KEYS - 1);
			return key;
		}

	}

	/** Our priority queue, no metrics; the plain queue's hand-off otherwise. */
	@State(Scope.Group)
	public static class OursPriority extends QueueHandOffBenchmark.Ours {

		@Override
		WorkQueue<String> newQueue() {
			return WorkQueues.<String>builder()
				.name("bench")
				.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter());
		}

		@Override
		void put(String item) {
			((PriorityQueue<String>) queue()).add(item, priorityOf(item));
		}

	}

	/**
	 * The JDK's priority blocking queue: offer and take of (priority, sequence, item), no
	 * dedup, no processing set.
	 */
	@State(Scope.Group)
	public static class JdkPriority extends HandOffQueue {

		private final AtomicLong sequence = new AtomicLong();

		private PriorityBlockingQueue<Ranked> queue;

		@Override
		void start() {
			this.queue = new PriorityBlockingQueue<>();
		}

		@Override
		void put(String item) {
			this.queue.offer(new Ranked(item, priorityOf(item), this.sequence.getAndIncrement()));
		}

		@Override
		String take() throws InterruptedException {
			Ranked next = released() ? this.queue.poll() : this.queue.take();
			return (next != null) ? next.item() : null;
		}

		@Override
		void release() {
			poisonConsumers();
		}

		@Override
		void stop() {
			this.queue.clear();
		}

	}

	/**
	 * An item of the JDK contender, highest priority first, then first offered.
	 *
	 * @param item the item
	 * @param priority its priority
	 * @param sequence its place among offers
	 */
	record Ranked(String item, int priority, long sequence) implements Comparable<Ranked> {

		@Override
		public int compareTo(Ranked other) {
			int byPriority = Integer.compare(other.priority, this.priority);
			return (byPriority != 0) ? byPriority : Long.compare(this.sequence, other.sequence);
		}

	}

}
