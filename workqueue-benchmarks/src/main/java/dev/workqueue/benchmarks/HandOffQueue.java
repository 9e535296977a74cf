package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Control;

/**
 * A queue under a producer/consumer hand-off benchmark: the JMH group state that the
 * producer and consumer threads of one group share. Subclasses adapt one contender; the
 * workload around it is this class's, identical for all.
 * <p>
 * <b>Workload.</b> Each producer adds distinct keys from its own slice of {@link #KEYS};
 * each consumer takes an item and, for work queues, marks it done at once. Producers stay
 * at most {@link #WINDOW} items ahead of the consumers (see {@link Backlog}); a slice is
 * far longer than that, so a key is never added again while it is still queued, and no
 * add is absorbed as a duplicate. The score is the consumers' rate.
 * <p>
 * <b>End of an iteration.</b> JMH ends an iteration only when every thread returns, but a
 * consumer may be blocked in a take that nothing will satisfy once the producers have
 * returned. So a watchdog thread, polling every {@value #RELEASE_POLL_MILLIS} ms, calls
 * {@link #release()} as soon as the measurement has stopped: work queues are shut down
 * (their {@code get} then returns null without blocking); plain queues get enough poison
 * items to wake every blocked consumer and switch to non-blocking polls. Nothing of this
 * happens while measuring, and the watchdog's wake-ups are the same for every contender.
 * A fresh queue is built for each iteration.
 */
@State(Scope.Group)
public abstract class HandOffQueue {

	/** Most items a producer may be ahead of the consumers. */
	static final int WINDOW = 4096;

	/** Keys per producer: many times the window, so no queued key is added again. */
	static final int KEYS_PER_PRODUCER = 1 << 16;

	static final String[] KEYS = Keys.distinct(Backlog.MAX_PRODUCERS * KEYS_PER_PRODUCER);

	/** What poisoned consumers get: never one of {@link #KEYS}. */
	static final String POISON = "poison";

	static final long RELEASE_POLL_MILLIS = 5;

	private final Backlog backlog = new Backlog();

	private final AtomicInteger producerSlots = new AtomicInteger();

	private final AtomicInteger consumerSlots = new AtomicInteger();

	/** Set by the watchdog before it calls {@link #release()}. */
	private volatile boolean released;

	/** The iteration's control, handed over by the first producer call. */
	private volatile Control control;

	private Thread watchdog;

	@Setup(Level.Iteration)
	public void open() {
		this.released = false;
		this.control = null;
		start();
		this.watchdog = new Thread(this::releaseWhenStopped, "hand-off-watchdog");
		this.watchdog.setDaemon(true);
		this.watchdog.start();
	}

	@TearDown(Level.Iteration)
	public void close() throws InterruptedException {
		this.watchdog.interrupt();
		this.watchdog.join();
		stop();
		this.backlog.settle();
	}

	private void releaseWhenStopped() {
		while (!Thread.currentThread().isInterrupted()) {
			Control control = this.control;
			if (control != null && control.stopMeasurement) {
				this.released = true;
				release();
				return;
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(RELEASE_POLL_MILLIS));
		}
	}

	/**
	 * One producer step: waits while the consumers are a window behind, then adds the
	 * producer's next key.
	 * @param producer the calling thread's producer state
	 * @param control JMH's iteration control
	 */
	final void produce(Producer producer, Control control) {
		if (this.control == null) {
			this.control = control;
		}
		if (producer.slot < 0) {
			producer.slot = this.producerSlots.getAndIncrement();
		}
		if ((producer.produced & 63) == 0) {
			while (this.backlog.size() > WINDOW && !control.stopMeasurement) {
				Thread.yield();
			}
		}
		int index = producer.slot * KEYS_PER_PRODUCER + (int) (producer.produced & (KEYS_PER_PRODUCER - 1));
		put(KEYS[index]);
		this.backlog.produced(producer.slot, ++producer.produced);
	}

	/**
	 * One consumer step: takes an item (and marks it done, for work queues).
	 * @param consumer the calling thread's consumer state
	 * @return the item, null once released
	 * @throws InterruptedException if interrupted while blocked
	 */
	final String consume(Consumer consumer) throws InterruptedException {
		if (consumer.slot < 0) {
			consumer.slot = this.consumerSlots.getAndIncrement();
		}
		String item = take();
		if (item != null) {
			this.backlog.consumed(consumer.slot, ++consumer.consumed);
		}
		return item;
	}

	/**
	 * Whether {@link #release()} has been called in this iteration: consumers of plain
	 * queues then poll instead of blocking.
	 * @return whether released
	 */
	final boolean released() {
		return this.released;
	}

	/** Builds the contender's queue for a new iteration. */
	abstract void start();

	abstract void put(String item);

	/**
	 * Takes the next item, blocking while the queue is empty and not released.
	 * @return the item, or null once released and empty
	 * @throws InterruptedException if interrupted while blocked
	 */
	abstract String take() throws InterruptedException;

	/**
	 * Wakes every consumer for good; called once, by the watchdog, after the measurement
	 * stopped.
	 */
	abstract void release();

	/** Discards the queue and stops its threads, if any. */
	abstract void stop();

	/** Puts one poison item per possible consumer, see {@link HandOffQueue}. */
	final void poisonConsumers() {
		for (int i = 0; i < Backlog.MAX_CONSUMERS * 2; i++) {
			put(POISON);
		}
	}

	/** A producer thread's position. */
	@State(Scope.Thread)
	public static class Producer {

		int slot = -1;

		long produced;

	}

	/** A consumer thread's count. */
	@State(Scope.Thread)
	public static class Consumer {

		int slot = -1;

		long consumed;

	}

}
