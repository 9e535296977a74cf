package dev.workqueue.benchmarks;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.kubernetes.client.extended.workqueue.DefaultWorkQueue;
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

import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueues;

/**
 * W1a: one thread runs add, get and done of a key that is not queued, over and over: the
 * pure data-structure cost of a work queue, with no thread ever waiting.
 * <p>
 * Contenders: our {@link WorkQueue}, client-java's {@link DefaultWorkQueue}, and the
 * JDK's {@link LinkedBlockingQueue} with offer and take (no dedup, no processing set: the
 * floor). The keys cycle through 65,536 distinct pre-built strings, so that the hash
 * lookups are those of many items, not of one hot key.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@State(Scope.Thread)
public class QueueCycleBenchmark {

	private static final int KEYS = 1 << 16;

	private final String[] keys = Keys.distinct(KEYS);

	private int next;

	private WorkQueue<String> ours;

	private DefaultWorkQueue<String> clientJava;

	private LinkedBlockingQueue<String> jdk;

	@Setup(Level.Trial)
	public void open() {
		this.ours = WorkQueues.<String>builder().name("bench").buildQueue();
		this.clientJava = new DefaultWorkQueue<>();
		this.jdk = new LinkedBlockingQueue<>();
	}

	@TearDown(Level.Trial)
	public void close() {
		this.ours.shutDown();
		this.clientJava.shutDown();
	}

	@Benchmark
	public String ours() throws InterruptedException {
		this.ours.add(nextKey());
		String item = this.ours.get();
		this.ours.done(item);
		return item;
	}

	@Benchmark
	public String clientJava() throws InterruptedException {
		this.clientJava.add(nextKey());
		String item = this.clientJava.get();
		this.clientJava.done(item);
		return item;
	}

	@Benchmark
	public String jdkLinkedBlockingQueue() throws InterruptedException {
		this.jdk.offer(nextKey());
		return this.jdk.take();
	}

	private String nextKey() {
		String key = this.keys[this.next];
		this.next = (this.next + 1) & (KEYS - 1);
		return key;
	}

}
