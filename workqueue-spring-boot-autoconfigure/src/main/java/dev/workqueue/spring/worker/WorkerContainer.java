package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationTargetException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;
import org.springframework.core.task.TaskExecutor;
import org.springframework.util.ClassUtils;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkResult;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The worker threads of one {@link WorkerEndpoint}: {@code concurrency} threads, each
 * looping {@code get} → invoke → outcome → {@code done} until the queue is shut down and
 * empty. Not a bean: {@link WorkerContainerRegistry} creates, starts and stops it.
 * <p>
 * A thread survives anything the worker method throws except a
 * {@link VirtualMachineError}. It ends when {@code get} returns {@code null} (the queue
 * is shut down and empty), or, once {@linkplain #abandon abandoned} at the shutdown
 * deadline, after its current item. A thread ending while the container is not stopping
 * marks it broken.
 * <p>
 * <b>Control.</b> {@link #pause()} makes every thread stop taking items: a thread
 * finishes its item, then waits until {@link #resume()}; one blocked in {@code get} is
 * woken by an interrupt. {@link #resize(int)} starts threads, or lets the surplus ones
 * end after their item. A paused container stays paused when the application stops: its
 * threads end without taking more.
 * <p>
 * Concurrency: {@code lock} guards the writes of {@code aliveThreads} (threads launched
 * and not yet ended) and {@code targetThreads}, and the conditions {@code threadEnded}
 * and {@code controlChanged}. The flags are volatile. A control change is published
 * before the takers are woken, and a taker publishes that it is in {@code get} before
 * reading the flags (see {@link Taker}), so a thread about to block in {@code get} either
 * sees the change or is interrupted out of the call. {@code abandoned} is written before
 * the threads are interrupted, so a thread woken by the interrupt sees it.
 */
final class WorkerContainer {

	private static final Log logger = LogFactory.getLog(WorkerContainer.class);

	/** Backoff after {@code get} fails, doubled per failure in a row up to the max. */
	private static final long MIN_BACKOFF_NANOS = 100_000_000L;

	private static final long MAX_BACKOFF_NANOS = 5_000_000_000L;

	/** What {@link #take} returns when a control change came first. */
	private static final Object YIELDED = new Object();

	private final WorkerEndpoint endpoint;

	private final String queueName;

	private final RateLimitingQueue<Object> queue;

	private final WorkOutcomes outcomes;

	private final TaskExecutor executor;

	private final Clock clock;

	private final WorkObservations observations;

	private final Class<?> itemType;

	private final Lock lock = new ReentrantLock();

	private final Condition threadEnded = this.lock.newCondition();

	/** Signalled on pause, resume, resize, stopping and abandon. */
	private final Condition controlChanged = this.lock.newCondition();

	private volatile int aliveThreads;

	private volatile int targetThreads;

	private final Set<Taker> takers = ConcurrentHashMap.newKeySet();

	private volatile boolean started;

	private volatile boolean paused;

	private volatile boolean stopping;

	private volatile boolean abandoned;

	private volatile boolean broken;

	/** Whether an outage of {@code get} is being reported; one log line per outage. */
	private final AtomicBoolean outage = new AtomicBoolean();

	WorkerContainer(WorkerEndpoint endpoint, String queueName, RateLimitingQueue<Object> queue, WorkOutcomes outcomes,
			TaskExecutor executor, Clock clock, WorkObservations observations, int concurrency, boolean paused) {
		this.endpoint = endpoint;
		this.queueName = queueName;
		this.queue = queue;
		this.outcomes = outcomes;
		this.executor = executor;
		this.clock = clock;
		this.observations = observations;
		this.targetThreads = concurrency;
		this.paused = paused;
		this.itemType = ClassUtils.resolvePrimitiveIfNecessary(endpoint.method().getParameterTypes()[0]);
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
	 * Stops taking items: each thread finishes the item in hand, then waits.
	 */
	void pause() {
		this.paused = true;
		wakeTakers();
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
	 * surplus end once their item is done.
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
				wakeTakers();
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
		this.takers.forEach((taker) -> taker.thread.interrupt());
	}

	WorkerContainerStatus status() {
		return new WorkerContainerStatus(this.queueName, this.endpoint.id(), this.targetThreads, this.aliveThreads,
				this.started && !this.stopping && !this.broken, this.paused);
	}

	private void work() {
		Taker taker = new Taker(Thread.currentThread());
		this.takers.add(taker);
		boolean retired = false;
		try {
			int failedGets = 0;
			Turn turn;
			while ((turn = awaitTurn()) == Turn.TAKE) {
				Object item;
				try {
					item = take(taker);
				}
				catch (InterruptedException ex) {
					// abandon() or a control change: look at the flags again.
					continue;
				}
				catch (RuntimeException ex) {
					// The queue's backend failed (a Redis outage): back off and retry.
					if (this.stopping) {
						return;
					}
					backOff(++failedGets, ex);
					continue;
				}
				if (item == YIELDED) {
					continue;
				}
				if (failedGets > 0) {
					failedGets = 0;
					if (this.outage.compareAndSet(true, false)) {
						logger.info(LogMessage.format("Queue '%s' answers again; worker %s resumes", this.queueName,
								this.endpoint.id()));
					}
				}
				if (item == null) {
					return;
				}
				try {
					process(item);
				}
				finally {
					done(item);
				}
			}
			retired = turn == Turn.RETIRE;
		}
		finally {
			this.takers.remove(taker);
			if (!retired) {
				if (!this.stopping) {
					this.broken = true;
					logger.error(LogMessage.format("Worker thread %s of %s ended while the application is running",
							taker.thread.getName(), this.endpoint.id()));
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
	 * Gets the next item, or {@link #YIELDED} if a control change came before the call. A
	 * change during the call interrupts it.
	 */
	private Object take(Taker taker) throws InterruptedException {
		taker.enterGet();
		try {
			if (this.paused || this.abandoned || this.aliveThreads > this.targetThreads) {
				return YIELDED;
			}
			return this.queue.get();
		}
		finally {
			taker.leaveGet();
		}
	}

	private void wakeTakers() {
		signalControl();
		this.takers.forEach(Taker::wake);
	}

	/**
	 * Marks {@code item} done. An item whose {@code equals} or {@code hashCode} throws
	 * here stays "processing" in the queue (see {@link dev.workqueue.WorkQueue}'s rule on
	 * keys); the thread logs it and goes on.
	 */
	private void done(Object item) {
		try {
			this.queue.done(item);
		}
		catch (RuntimeException | LinkageError | StackOverflowError ex) {
			logger.error(LogMessage.format("Queue '%s' could not mark an item of %s done; it stays in process",
					this.queueName, item.getClass().getName()), ex);
		}
	}

	/**
	 * Waits before the next {@code get} after {@code failures} failed ones in a row: 100
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

	private void process(Object item) {
		WorkObservations.Work work = beginObservation(item);
		WorkOutcome outcome = WorkOutcome.FAILED;
		Throwable error = null;
		try {
			if (!this.itemType.isInstance(item)) {
				error = new IllegalArgumentException(
						"Item of " + item.getClass().getName() + " does not fit the parameter of worker "
								+ this.endpoint.id() + ", a " + this.itemType.getName());
				outcome = this.outcomes.rejected(item, error);
				return;
			}
			WorkResult result;
			try {
				result = invoke(item);
			}
			catch (Throwable ex) {
				rethrowIfFatal(ex);
				error = ex;
				outcome = this.outcomes.failed(item, ex);
				return;
			}
			outcome = this.outcomes.finished(item, result);
		}
		catch (Throwable ex) {
			// The limiter, a listener or the logging failed: keep the thread alive.
			rethrowIfFatal(ex);
			error = (error != null) ? error : ex;
			logger.error(LogMessage.format("Failed to handle the outcome of %s for an item of %s of queue '%s'",
					this.endpoint.id(), item.getClass().getName(), this.queueName), ex);
		}
		finally {
			endObservation(work, outcome, error);
		}
	}

	/** An observation that fails to start costs only the observation. */
	private WorkObservations.Work beginObservation(Object item) {
		try {
			return this.observations.begin(this.endpoint, item);
		}
		catch (RuntimeException ex) {
			logger.error(LogMessage.format("Could not observe an item of queue '%s'", this.queueName), ex);
			return WorkObservations.Work.NONE;
		}
	}

	private void endObservation(WorkObservations.Work work, WorkOutcome outcome, @Nullable Throwable error) {
		try {
			work.end(outcome, error);
		}
		catch (RuntimeException ex) {
			logger.error(LogMessage.format("Could not end the observation of an item of queue '%s'", this.queueName),
					ex);
		}
	}

	private @Nullable WorkResult invoke(Object item) throws Throwable {
		try {
			return (WorkResult) this.endpoint.method().invoke(this.endpoint.bean(), item);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	private static void rethrowIfFatal(Throwable ex) {
		if (ex instanceof VirtualMachineError error) {
			throw error;
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

	/**
	 * One worker thread, and whether it is inside {@code get}, so that a control change
	 * can interrupt it there and nowhere else: never while it runs the worker method.
	 * <p>
	 * The thread sets {@code TAKING} before it reads the control flags and calls
	 * {@code get}; a controller, having changed a flag, moves {@code TAKING} to
	 * {@code WAKING} with a CAS, interrupts, then sets {@code WOKEN}. Leaving
	 * {@code get}, the thread moves {@code TAKING} back to {@code IDLE}; if that CAS
	 * fails an interrupt was or is being sent, so it waits for {@code WOKEN} and clears
	 * its interrupt status before running any worker code. An item {@code get} returned
	 * meanwhile is processed: it was handed out before the change took effect.
	 */
	private static final class Taker {

		private static final int IDLE = 0;

		private static final int TAKING = 1;

		private static final int WAKING = 2;

		private static final int WOKEN = 3;

		final Thread thread;

		private final AtomicInteger state = new AtomicInteger(IDLE);

		Taker(Thread thread) {
			this.thread = thread;
		}

		void enterGet() {
			this.state.set(TAKING);
		}

		void leaveGet() {
			if (!this.state.compareAndSet(TAKING, IDLE)) {
				while (this.state.get() != WOKEN) {
					Thread.onSpinWait();
				}
				Thread.interrupted();
				this.state.set(IDLE);
			}
		}

		void wake() {
			if (this.state.compareAndSet(TAKING, WAKING)) {
				this.thread.interrupt();
				this.state.set(WOKEN);
			}
		}

	}

}
