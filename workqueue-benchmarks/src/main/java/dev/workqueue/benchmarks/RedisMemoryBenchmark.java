package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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

/**
 * Issue 12: Redis bytes per waiting item, at {@value #ITEMS} distinct items waiting for a
 * 1 h delay: ours' {@code addAfter}, Redisson's {@code RDelayedQueue.offer}, from
 * {@value #FILLERS} threads, the same {@code namespace-n/item-i} strings for both.
 * <p>
 * {@code bytesPerItem} adds up {@code MEMORY USAGE <key> SAMPLES 0} (every element
 * counted) over every key of the queue, after filling less before (just built), per item:
 * the contender's own keys only. {@code usedMemoryBytesPerItem} is the
 * {@code INFO memory used_memory} delta per item: the whole server, so anything another
 * client of a shared server stored meanwhile shows in it. The primary score, the fill's
 * duration, means nothing.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 2)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class RedisMemoryBenchmark {

	static final int ITEMS = 100_000;

	static final int FILLERS = 4;

	static final Duration DELAY = Duration.ofHours(1);

	static final String[] KEYS = Keys.distinct(ITEMS);

	@Benchmark
	public void delayingQueue_ours(Ours waiting, Bytes bytes, BenchmarkParams params) throws InterruptedException {
		waiting.fill(bytes, params);
	}

	@Benchmark
	public void delayingQueue_redisson(Redisson waiting, Bytes bytes, BenchmarkParams params)
			throws InterruptedException {
		waiting.fill(bytes, params);
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Bytes {

		public double bytesPerItem;

		public double usedMemoryBytesPerItem;

		public double keys;

	}

	/** A delaying queue, fresh and empty for each iteration. */
	public abstract static class Waiting {

		private String name;

		private RedisContender contender;

		private RedisContender.Queue queue;

		abstract String contenderName();

		@Setup(Level.Iteration)
		public void start() {
			this.name = RedisAdmin.uniqueName("memory");
			this.contender = RedisContender.named(contenderName());
			this.contender.open(this.name);
			this.queue = this.contender.delayingQueue(this.name);
		}

		final void fill(Bytes bytes, BenchmarkParams params) throws InterruptedException {
			try (RedisAdmin admin = RedisAdmin.connect()) {
				long keyBytesBefore = admin.memoryUsage(this.name);
				long usedBefore = admin.usedMemory();
				AtomicReference<RuntimeException> failure = new AtomicReference<>();
				List<Thread> fillers = new ArrayList<>();
				for (int f = 0; f < FILLERS; f++) {
					int first = f;
					Thread filler = new Thread(() -> {
						try {
							for (int i = first; i < ITEMS; i += FILLERS) {
								this.queue.addAfter(KEYS[i], DELAY);
							}
						}
						catch (RuntimeException ex) {
							failure.compareAndSet(null, ex);
						}
					}, "redis-bench-filler-" + f);
					fillers.add(filler);
					filler.start();
				}
				for (Thread filler : fillers) {
					filler.join();
				}
				if (failure.get() != null) {
					throw failure.get();
				}
				long usedAfter = admin.usedMemory();
				long keyBytes = admin.memoryUsage(this.name) - keyBytesBefore;
				double share = Figures.share(params);
				bytes.bytesPerItem = (double) keyBytes / ITEMS * share;
				bytes.usedMemoryBytesPerItem = (double) (usedAfter - usedBefore) / ITEMS * share;
				bytes.keys = admin.keysContaining(this.name).size() * share;
			}
		}

		@TearDown(Level.Iteration)
		public void stop() {
			this.queue.stop();
			this.contender.close();
			try (RedisAdmin admin = RedisAdmin.connect()) {
				admin.deleteKeysContaining(this.name);
			}
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Waiting {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class Redisson extends Waiting {

		@Override
		String contenderName() {
			return "redisson";
		}

	}

}
