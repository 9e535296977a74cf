package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;

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
 * Issue 22: adds per second of one thread adding distinct items to a queue on Redis, one
 * call at a time, each call returning once Redis has answered; no consumer.
 * <p>
 * <b>Workload.</b> The JMH thread calls {@code add("item-" + n)}, {@code n} counting up
 * over the trial, so no item is ever already queued. The queue grows through an
 * iteration; each iteration has a fresh queue (a new name), whose keys are deleted when
 * it ends. The score is adds per second.
 * <p>
 * The auxiliary counters (see {@link Figures}) are Redis commands per add, from
 * {@code INFO commandstats} before and after each iteration ({@link CommandProfile}):
 * {@code commandsPerItem} (every command, those run by a script included) and
 * {@code evalshaPerItem}; each iteration also prints its top commands per add. The server
 * is shared: other clients' commands count too.
 * <p>
 * Contenders: ours ({@code buildQueue()}'s {@code add}: the item is deduplicated) and
 * Redisson's {@code RBlockingQueue.add} (one RPUSH, no dedup).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 2, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class RedisAddBenchmark {

	@Benchmark
	public void oneAtATime_ours(Ours adding) {
		adding.add();
	}

	@Benchmark
	public void oneAtATime_redisson(Redisson adding) {
		adding.add();
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Commands {

		public double commandsPerItem;

		public double evalshaPerItem;

	}

	/** A queue with nothing but adds, fresh for each iteration. */
	public abstract static class Adding {

		private final CommandProfile profile = new CommandProfile();

		private RedisContender contender;

		private RedisAdmin admin;

		private String name;

		private RedisContender.Queue queue;

		private long added;

		private long addedBefore;

		abstract String contenderName();

		@Setup(Level.Trial)
		public void open() {
			this.contender = RedisContender.named(contenderName());
			this.contender.open(RedisAdmin.uniqueName("client"));
			this.admin = RedisAdmin.connect();
		}

		@Setup(Level.Iteration)
		public void begin() {
			this.name = RedisAdmin.uniqueName("add");
			this.queue = this.contender.queue(this.name);
			this.profile.reset();
			this.addedBefore = this.added;
			this.profile.start(this.admin);
		}

		final void add() {
			this.queue.add("item-" + this.added++);
		}

		@TearDown(Level.Iteration)
		public void end(Commands commands, BenchmarkParams params) {
			this.profile.stop(this.admin, this.added - this.addedBefore);
			double share = Figures.share(params);
			commands.commandsPerItem = this.profile.perItem() * share;
			commands.evalshaPerItem = this.profile.perItem("evalsha") * share;
			System.out.println(this.profile.line(contenderName() + " add"));
			this.queue.stop();
			this.admin.deleteKeysContaining(this.name);
		}

		@TearDown(Level.Trial)
		public void close() {
			this.contender.close();
			this.admin.close();
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Adding {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class Redisson extends Adding {

		@Override
		String contenderName() {
			return "redisson";
		}

	}

}
