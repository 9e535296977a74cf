package dev.workqueue.benchmarks;

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
 * W2: one thread adds keys that are already queued, cycling over 1,000 hot keys: every
 * add is a no-op duplicate. Our queue absorbs a duplicate without its lock; client-java's
 * takes its monitor for every add.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@State(Scope.Thread)
public class DedupAddBenchmark {

	private static final int HOT_KEYS = 1000;

	private final String[] keys = Keys.distinct(HOT_KEYS);

	private int next;

	private WorkQueue<String> ours;

	private DefaultWorkQueue<String> clientJava;

	@Setup(Level.Trial)
	public void open() {
		this.ours = WorkQueues.<String>builder().name("bench").buildQueue();
		this.clientJava = new DefaultWorkQueue<>();
		for (String key : this.keys) {
			this.ours.add(key);
			this.clientJava.add(key);
		}
	}

	@TearDown(Level.Trial)
	public void close() {
		if (this.ours.size() != HOT_KEYS || this.clientJava.length() != HOT_KEYS) {
			throw new IllegalStateException("a duplicate add changed a queue's length");
		}
		this.ours.shutDown();
		this.clientJava.shutDown();
	}

	@Benchmark
	public void ours() {
		this.ours.add(nextKey());
	}

	@Benchmark
	public void clientJava() {
		this.clientJava.add(nextKey());
	}

	private String nextKey() {
		String key = this.keys[this.next];
		if (++this.next == HOT_KEYS) {
			this.next = 0;
		}
		return key;
	}

}
