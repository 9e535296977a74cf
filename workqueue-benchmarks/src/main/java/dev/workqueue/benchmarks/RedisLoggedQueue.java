package dev.workqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A queue on Redis whose consumers log when each item reaches them, for the latency and
 * delay figures of issue 12: items are {@code item-<i>}, and each consumer thread (one
 * unless a subclass says more), blocked in {@code get}, calls
 * {@link FiringLog#fired}{@code (i)} as soon as it has item {@code i}, then marks it done
 * with the get of the next one ({@link RedisContender.Queue#doneAndGet}, the worker
 * containers' path). Items of other names (a subclass's load) are taken and done
 * unlogged.
 * <p>
 * The client is opened once per trial; each iteration has a fresh queue (a new name) and
 * log, and deletes the queue's keys when it ends. Subclasses pick the contender and the
 * kind of queue.
 */
public abstract class RedisLoggedQueue {

	static final String[] NAMES = names(100_000);

	RedisContender contender;

	RedisContender.Queue queue;

	FiringLog log;

	private String name;

	private final List<Thread> consumers = new ArrayList<>();

	private boolean ended;

	abstract String contenderName();

	/** Whether the queue is a delaying queue. */
	abstract boolean delaying();

	/** Items per iteration, at most {@code NAMES.length}. */
	abstract int items();

	/** Consumer threads. */
	int consumers() {
		return 1;
	}

	@Setup(Level.Trial)
	public void open() {
		this.contender = RedisContender.named(contenderName());
		this.contender.open(RedisAdmin.uniqueName("client"));
	}

	@Setup(Level.Iteration)
	public void begin() {
		this.name = RedisAdmin.uniqueName(delaying() ? "delays" : "latency");
		this.queue = delaying() ? this.contender.delayingQueue(this.name) : this.contender.queue(this.name);
		this.log = new FiringLog(items());
		this.ended = false;
		RedisContender.Queue queue = this.queue;
		FiringLog log = this.log;
		this.consumers.clear();
		for (int i = 0; i < consumers(); i++) {
			Thread consumer = new Thread(() -> {
				try {
					for (String item = queue.get(); item != null; item = queue.doneAndGet(item)) {
						if (item.startsWith("item-")) {
							log.fired(Integer.parseInt(item, "item-".length(), item.length(), 10));
						}
					}
				}
				catch (InterruptedException | RuntimeException ex) {
					// Stopped by end().
				}
			}, "redis-bench-consumer-" + i);
			consumer.setDaemon(true);
			consumer.start();
			this.consumers.add(consumer);
		}
	}

	/**
	 * Stops the queue object and its consumer, so that the log is final, and deletes the
	 * queue's keys.
	 * @throws InterruptedException if interrupted
	 */
	@TearDown(Level.Iteration)
	public void end() throws InterruptedException {
		if (this.ended) {
			return;
		}
		this.ended = true;
		this.queue.stop();
		for (Thread consumer : this.consumers) {
			consumer.interrupt();
		}
		for (Thread consumer : this.consumers) {
			consumer.join(10_000);
		}
		try (RedisAdmin admin = RedisAdmin.connect()) {
			admin.deleteKeysContaining(this.name);
		}
	}

	@TearDown(Level.Trial)
	public void close() {
		this.contender.close();
	}

	private static String[] names(int count) {
		String[] items = new String[count];
		for (int i = 0; i < count; i++) {
			items[i] = "item-" + i;
		}
		return items;
	}

}
