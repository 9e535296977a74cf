package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;
import org.springframework.core.task.TaskExecutor;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The worker threads of one {@link WorkerEndpoint}: {@code concurrency} threads, each
 * looping {@code poll} → {@link WorkerInvoker#process process} (invoke, outcome) →
 * {@code done} until the queue is shut down and empty. Each thread takes items through a
 * {@link Poller} of its own ({@link Pollers#of}), and marks its item done with its next
 * poll ({@link Poller#doneAndPoll}, one round trip on Redis), or alone before it waits
 * for its turn or ends. Not a bean: {@link WorkerContainerRegistry} creates, starts and
 * stops it.
 * <p>
 * A thread survives anything the worker method throws except a
 * {@link VirtualMachineError} other than a {@link StackOverflowError} (which fails its
 * item as an exception does). It ends when two polls in a row return {@code null} on a
 * queue that was shut down before each call (shut down and empty: one {@code null} alone
 * may be a wake-up), or, once {@linkplain #abandon abandoned} at the shutdown deadline,
 * after its current item. A thread ending while the container is not stopping marks it
 * broken.
 * <p>
 * <b>Control.</b> A thread waits for items with {@code poll(pollTimeout)} and looks at
 * the control flags between polls, so no control change interrupts it: {@link #pause()}
 * makes every thread stop taking items, a thread finishing its item (or its poll) then
 * waits until {@link #resume()}. {@link #resize(int)} starts threads, or lets the surplus
 * ones end after their item or poll. A paused container stays paused when the application
 * stops: its threads end without taking more. Only {@link #abandon()} interrupts, at the
 * shutdown deadline.
 * <p>
 * A pause, a shrink or {@link #abandon()} calls {@link Poller#wakeup()} on the poller of
 * every thread after changing the flags. A wake-up is sticky: it ends the poll under way
 * or, if none is, the thread's next one. A thread registers its poller before it first
 * looks at the flags, and looks again before each poll, so a change ends that poll
 * however the two interleave (both sides write, then read, volatile state: the flag and
 * the set of pollers). An item a poll returned before the change is processed, as it was
 * handed out already; the wake-up then left pending makes the thread's next poll return
 * at once, which only costs a look at the flags. On a queue whose own pollers end a poll
 * under way (every queue the starter builds) the change takes effect at once; on another
 * queue, whose fallback poller ends only the next poll, within {@code pollTimeout}.
 * <p>
 * Concurrency: {@code lock} guards the writes of {@code aliveThreads} (threads launched
 * and not yet ended) and {@code targetThreads}, and the conditions {@code threadEnded}
 * and {@code controlChanged}. The flags are volatile. {@code abandoned} is written before
 * the threads are interrupted, so a thread woken by the interrupt sees it.
 */
final class WorkerContainer {

	private static final Log logger = LogFactory.getLog(WorkerContainer.class);

	/** Backoff after {@code poll} fails, doubled per failure in a row up to the max. */
	private static final long MIN_BACKOFF_NANOS = 100_000_000L;

	private static final long MAX_BACKOFF_NANOS = 5_000_000_000L;

	private final WorkerEndpoint endpoint;

	private final String queueName;

	private final RateLimitingQueue<Object> queue;

	private final WorkerInvoker invoker;

	private final TaskExecutor executor;

	private final Clock clock;

	private final Duration pollTimeout;

	private final Lock lock = new ReentrantLock();

	private final Condition threadEnded = this.lock.newCondition();

	/** Signalled on resume, resize, stopping and abandon. */
	private final Condition controlChanged = this.lock.newCondition();

	private volatile int aliveThreads;

	private volatile int targetThreads;

	/** The running threads, for {@link #abandon()} to interrupt. */
	private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

	/** The pollers of the running threads, one each, for a control change to wake. */
	private final Set<Poller<Object>> pollers = ConcurrentHashMap.newKeySet();

	private volatile boolean started;

	/** This container's view of its queue's pause, which the registry owns and sets. */
	private volatile boolean paused;

	private volatile boolean stopping;

	private volatile boolean abandoned;

	private volatile boolean broken;

	/** Whether an outage of {@code poll} is being reported; one log line per outage. */
	private final AtomicBoolean outage = new AtomicBoolean();

	WorkerContainer(WorkerEndpoint endpoint, String queueName, RateLimitingQueue<Object> queue, WorkOutcomes outcomes,
			TaskExecutor executor, Clock clock, WorkObservations observations, Duration pollTimeout, int concurrency,
			boolean paused) {
		this.endpoint = endpoint;
		this.queueName = queueName;
		this.queue = queue;
		this.invoker = new WorkerInvoker(endpoint, queueName, queue, outcomes, observations);
		this.executor = executor;
		this.clock = clock;
		this.pollTimeout = pollTimeout;
		this.targetThreads = concurrency;
		this.paused = paused;
	}

	/**
	 * Launches the threads.
	 */
	void start() {
		this.lock.lock();
		try {
			this.started = true;
			launch(this.targetThreads);
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Launches {@code count} threads. Called with the lock held. */
	private void launch(int count) {
		for (int i = 0; i < count; i++) {
			changeAliveThreads(1);
			try {
				this.executor.execute(this::work);
			}
			catch (RuntimeException | Error ex) {
				changeAliveThreads(-1);
				throw ex;
			}
		}
	}

	/**
	 * Stops taking items: each thread finishes the item in hand or its poll, then waits.
	 */
	void pause() {
		this.paused = true;
		wakePollers();
	}

	/**
	 * Takes items again after {@link #pause()}.
	 */
	void resume() {
		this.paused = false;
		signalControl();
	}

	/**
	 * Runs {@code concurrency} threads from now on: starts the missing ones, or lets the
	 * surplus end once their item is done or their poll over.
	 * @param concurrency the number of threads, at least 1
	 */
	void resize(int concurrency) {
		this.lock.lock();
		try {
			boolean shrinks = concurrency < this.targetThreads;
			this.targetThreads = concurrency;
			this.controlChanged.signalAll();
			if (this.started && !this.stopping && concurrency > this.aliveThreads) {
				launch(concurrency - this.aliveThreads);
			}
			if (shrinks) {
				// Which threads retire is decided by who looks at the flags first.
				wakePollers();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Marks the container as stopping: threads ending from now on are expected to.
	 */
	void stopping() {
		this.stopping = true;
		signalControl();
	}

	/**
	 * Waits until every thread has ended, at most until {@code deadlineNanos}.
	 * @param deadlineNanos the reading of the clock to stop waiting at
	 * @return whether every thread has ended; {@code false} also if the calling thread
	 * was interrupted, whose interrupt status is then kept
	 */
	boolean awaitEnd(long deadlineNanos) {
		this.lock.lock();
		try {
			while (this.aliveThreads > 0 && this.clock.nanoTime() < deadlineNanos) {
				this.clock.awaitUntil(this.lock, this.threadEnded, deadlineNanos);
			}
			return this.aliveThreads == 0;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Gives up waiting: the threads take no new item and are interrupted, so that they
	 * end after the item in hand.
	 */
	void abandon() {
		this.abandoned = true;
		signalControl();
		wakePollers();
		this.threads.forEach(Thread::interrupt);
	}

	WorkerContainerStatus status() {
		return new WorkerContainerStatus(this.queueName, this.endpoint.id(), this.targetThreads, this.aliveThreads,
				this.started && !this.stopping && !this.broken, this.paused);
	}

	private void wakePollers() {
		this.pollers.forEach(Poller::wakeup);
	}

	private void work() {
		Thread thread = Thread.currentThread();
		this.threads.add(thread);
		Poller<Object> poller = null;
		boolean retired = false;
		// The item this thread processed last, not yet marked done: it is marked done
		// with the next poll (one round trip on Redis), or alone before the thread waits
		// for its turn or ends.
		Object finished = null;
		try {
			// Registered before the flags are first read: a later change wakes it.
			poller = Pollers.of(this.queue);
			this.pollers.add(poller);
			int failedPolls = 0;
			// Empty polls in a row of a queue shut down before each call.
			int emptyPolls = 0;
			while (true) {
				Turn turn = (finished != null) ? turnNow() : awaitTurn();
				if (turn == null) {
					// This thread must wait for its turn: its item first.
					this.invoker.done(finished);
					finished = null;
					continue;
				}
				if (turn != Turn.TAKE) {
					retired = turn == Turn.RETIRE;
					return;
				}
				// Read first: null from a queue shut down before the call means empty.
				boolean shutDown = this.queue.isShuttingDown();
				PriorityQueue.Prioritized<Object> next;
				Object done = finished;
				finished = null;
				try {
					next = (done != null) ? poller.doneAndPoll(done, this.pollTimeout) : poller.poll(this.pollTimeout);
				}
				catch (InterruptedException ex) {
					// Only abandon() interrupts, and it sets the flag first.
					continue;
				}
				catch (RuntimeException ex) {
					if (done != null) {
						// The item's done failed, or the poll did: the next poll, alone,
						// tells an outage apart.
						this.invoker.doneFailed(done, ex);
						continue;
					}
					// The queue's backend failed (a Redis outage): back off and retry.
					if (this.stopping) {
						return;
					}
					backOff(++failedPolls, ex);
					continue;
				}
				if (failedPolls > 0) {
					failedPolls = 0;
					if (this.outage.compareAndSet(true, false)) {
						logger.info(LogMessage.format("Queue '%s' answers again; worker %s resumes", this.queueName,
								this.endpoint.id()));
					}
				}
				if (next != null) {
					emptyPolls = 0;
					// Owed first: done even if processing throws an error.
					finished = next.item();
					// An interrupt the last worker method kept for its caller is not
					// this item's; only abandon()'s stays, and it sets its flag before it
					// interrupts.
					if (Thread.interrupted() && this.abandoned) {
						Thread.currentThread().interrupt();
					}
					this.invoker.process(next.item(), next.priority(), poller.trace());
				}
				else if (shutDown && ++emptyPolls == 2) {
					// Shut down and empty. One null alone may be a wake-up that a pause
					// or
					// a resize left pending before the shutdown (a wake-up ends one poll;
					// after the shutdown only abandon() wakes, and it ends the thread).
					return;
				}
			}
		}
		finally {
			if (finished != null) {
				this.invoker.done(finished);
			}
			this.threads.remove(thread);
			if (poller != null) {
				this.pollers.remove(poller);
			}
			if (!retired) {
				if (!this.stopping) {
					this.broken = true;
					logger.error(LogMessage.format("Worker thread %s of %s ended while the application is running",
							thread.getName(), this.endpoint.id()));
				}
				changeAliveThreads(-1);
			}
		}
	}

	/**
	 * Waits until this thread may take an item; {@link Turn#RETIRE} (already counted out)
	 * when it is surplus after a {@link #resize}, {@link Turn#END} when abandoned or
	 * paused while stopping.
	 */
	private Turn awaitTurn() {
		this.lock.lock();
		try {
			while (true) {
				Turn turn = turnHeld();
				if (turn != null) {
					return turn;
				}
				try {
					this.controlChanged.await();
				}
				catch (InterruptedException ex) {
					// Only abandon() interrupts a thread here, and it sets the flag
					// first.
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * This thread's turn now, as {@link #awaitTurn()}, or {@code null} if it must wait.
	 */
	private Turn turnNow() {
		this.lock.lock();
		try {
			return turnHeld();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** {@link #turnNow()} with the lock held. */
	private Turn turnHeld() {
		if (this.abandoned) {
			return Turn.END;
		}
		if (this.aliveThreads > this.targetThreads) {
			changeAliveThreads(-1);
			return Turn.RETIRE;
		}
		if (!this.paused) {
			return Turn.TAKE;
		}
		if (this.stopping) {
			return Turn.END;
		}
		return null;
	}

	/**
	 * Waits before the next {@code poll} after {@code failures} failed ones in a row: 100
	 * ms doubling to 5 s, on the clock, cut short by {@link #stopping()}. The first
	 * failure of an outage is logged at WARN, once for the container.
	 */
	private void backOff(int failures, RuntimeException ex) {
		if (this.outage.compareAndSet(false, true)) {
			logger.warn(LogMessage.format("Queue '%s' failed to hand out an item to worker %s; retrying with backoff",
					this.queueName, this.endpoint.id()), ex);
		}
		long backoffNanos = MIN_BACKOFF_NANOS << Math.min(failures - 1, 6);
		long deadlineNanos = Nanos.add(this.clock.nanoTime(), Math.min(backoffNanos, MAX_BACKOFF_NANOS));
		this.lock.lock();
		try {
			while (!this.stopping && !this.abandoned && this.clock.nanoTime() < deadlineNanos) {
				this.clock.awaitUntil(this.lock, this.controlChanged, deadlineNanos);
			}
		}
		catch (InterruptedException interrupted) {
			// Only abandon() interrupts on purpose, and it sets the flag first.
		}
		finally {
			this.lock.unlock();
		}
	}

	private void signalControl() {
		this.lock.lock();
		try {
			this.controlChanged.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void changeAliveThreads(int delta) {
		this.lock.lock();
		try {
			this.aliveThreads += delta;
			this.threadEnded.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private enum Turn {

		TAKE, RETIRE, END

	}

}
