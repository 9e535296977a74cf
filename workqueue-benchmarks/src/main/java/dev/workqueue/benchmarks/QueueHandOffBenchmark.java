package dev.workqueue.benchmarks;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.kubernetes.client.extended.workqueue.DefaultWorkQueue;
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

/**
 * W1b and W1c: items handed from producer threads to consumer threads through a work
 * queue (add, then get and done), one producer and one consumer, then four and four.
 * <p>
 * Contenders: our {@link WorkQueue}, client-java's {@link DefaultWorkQueue}, and (one to
 * one) the JDK's {@link LinkedBlockingQueue} with offer and take, which does no dedup at
 * all. The workload, the bounded backlog and the end-of-iteration release are
 * {@link HandOffQueue}'s, the same for all. Read the {@code ...Consume} rows: items
 * handed over per microsecond (the group total counts producers too).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
public class QueueHandOffBenchmark {

	@Benchmark
	@Group("oneToOne_ours")
	@GroupThreads(1)
	public void oneToOneOursProduce(Ours queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("oneToOne_ours")
	@GroupThreads(1)
	public String oneToOneOursConsume(Ours queue, HandOffQueue.Consumer consumer) throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	@Group("oneToOne_clientJava")
	@GroupThreads(1)
	public void oneToOneClientJavaProduce(ClientJava queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("oneToOne_clientJava")
	@GroupThreads(1)
	public String oneToOneClientJavaConsume(ClientJava queue, HandOffQueue.Consumer consumer)
			throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	@Group("oneToOne_jdkLinkedBlockingQueue")
	@GroupThreads(1)
	public void oneToOneJdkProduce(Jdk queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("oneToOne_jdkLinkedBlockingQueue")
	@GroupThreads(1)
	public String oneToOneJdkConsume(Jdk queue, HandOffQueue.Consumer consumer) throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	@Group("fourToFour_ours")
	@GroupThreads(4)
	public void fourToFourOursProduce(Ours queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("fourToFour_ours")
	@GroupThreads(4)
	public String fourToFourOursConsume(Ours queue, HandOffQueue.Consumer consumer) throws InterruptedException {
		return queue.consume(consumer);
	}

	@Benchmark
	@Group("fourToFour_clientJava")
	@GroupThreads(4)
	public void fourToFourClientJavaProduce(ClientJava queue, HandOffQueue.Producer producer, Control control) {
		queue.produce(producer, control);
	}

	@Benchmark
	@Group("fourToFour_clientJava")
	@GroupThreads(4)
	public String fourToFourClientJavaConsume(ClientJava queue, HandOffQueue.Consumer consumer)
			throws InterruptedException {
		return queue.consume(consumer);
	}

	/** Our work queue, no metrics. */
	@State(Scope.Group)
	public static class Ours extends HandOffQueue {

		private WorkQueue<String> queue;

		@Override
		void start() {
			this.queue = newQueue();
		}

		/** Builds the queue measured, fresh for each iteration. */
		WorkQueue<String> newQueue() {
			return WorkQueues.<String>builder().name("bench").buildQueue();
		}

		@Override
		void put(String item) {
			this.queue.add(item);
		}

		/** The queue of this iteration. */
		WorkQueue<String> queue() {
			return this.queue;
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

	/** client-java's work queue. */
	@State(Scope.Group)
	public static class ClientJava extends HandOffQueue {

		private DefaultWorkQueue<String> queue;

		@Override
		void start() {
			this.queue = new DefaultWorkQueue<>();
		}

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

	/** The JDK's linked blocking queue: offer and take, no dedup, no processing set. */
	@State(Scope.Group)
	public static class Jdk extends HandOffQueue {

		private LinkedBlockingQueue<String> queue;

		@Override
		void start() {
			this.queue = new LinkedBlockingQueue<>();
		}

		@Override
		void put(String item) {
			this.queue.offer(item);
		}

		@Override
		String take() throws InterruptedException {
			return released() ? this.queue.poll() : this.queue.take();
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

}
