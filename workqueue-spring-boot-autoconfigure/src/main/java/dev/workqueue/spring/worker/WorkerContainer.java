package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationTargetException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * Concurrency: {@code lock} guards {@code aliveThreads} (threads launched and not yet
 * ended) and its condition {@code threadEnded}. {@code threads} is a concurrent set of
 * the running threads, for interrupting them. The state flags are volatile;
 * {@code abandoned} is written before the threads are interrupted, so a thread woken by
 * the interrupt sees it.
 */
final class WorkerContainer {

	private static final Log logger = LogFactory.getLog(WorkerContainer.class);

	/** Backoff after {@code get} fails, doubled per failure in a row up to the max. */
	private static final long MIN_BACKOFF_NANOS = 100_000_000L;

	private static final long MAX_BACKOFF_NANOS = 5_000_000_000L;

	private final WorkerEndpoint endpoint;

	private final String queueName;

	private final RateLimitingQueue<Object> queue;

	private final WorkOutcomes outcomes;

	private final TaskExecutor executor;

	private final Clock clock;

	private final int concurrency;

	private final Class<?> itemType;

	private final Lock lock = new ReentrantLock();

	private final Condition threadEnded = this.lock.newCondition();

	private int aliveThreads;

	private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

	private volatile boolean started;

	private volatile boolean stopping;

	private volatile boolean abandoned;

	private volatile boolean broken;

	/** Guarded by {@link #lock}: the threads that are backing off after a failed get. */
	private final Condition stoppingOrAbandoned = this.lock.newCondition();

	/** Whether an outage of {@code get} is being reported; one log line per outage. */
	private final AtomicBoolean outage = new AtomicBoolean();

	WorkerContainer(WorkerEndpoint endpoint, String queueName, RateLimitingQueue<Object> queue, WorkOutcomes outcomes,
			TaskExecutor executor, Clock clock, int concurrency) {
		this.endpoint = endpoint;
		this.queueName = queueName;
		this.queue = queue;
		this.outcomes = outcomes;
		this.executor = executor;
		this.clock = clock;
		this.concurrency = concurrency;
		this.itemType = ClassUtils.resolvePrimitiveIfNecessary(endpoint.method().getParameterTypes()[0]);
	}

	/**
	 * Launches the threads.
	 */
	void start() {
		this.started = true;
		for (int i = 0; i < this.concurrency; i++) {
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
	 * Marks the container as stopping: threads ending from now on are expected to.
	 */
	void stopping() {
		this.stopping = true;
		wakeBackoff();
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
		wakeBackoff();
		this.threads.forEach(Thread::interrupt);
	}

	WorkerContainerStatus status() {
		return new WorkerContainerStatus(this.queueName, this.endpoint.id(), this.concurrency, aliveThreads(),
				this.started && !this.stopping && !this.broken);
	}

	private int aliveThreads() {
		this.lock.lock();
		try {
			return this.aliveThreads;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void work() {
		Thread thread = Thread.currentThread();
		this.threads.add(thread);
		try {
			int failedGets = 0;
			while (!this.abandoned) {
				Object item;
				try {
					item = this.queue.get();
				}
				catch (InterruptedException ex) {
					// Only abandon() interrupts on purpose, and it sets the flag first.
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
		}
		finally {
			this.threads.remove(thread);
			if (!this.stopping) {
				this.broken = true;
				logger.error(LogMessage.format("Worker thread %s of %s ended while the application is running",
						thread.getName(), this.endpoint.id()));
			}
			changeAliveThreads(-1);
		}
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
				this.clock.awaitUntil(this.lock, this.stoppingOrAbandoned, deadlineNanos);
			}
		}
		catch (InterruptedException interrupted) {
			// Only abandon() interrupts on purpose, and it sets the flag first.
		}
		finally {
			this.lock.unlock();
		}
	}

	private void wakeBackoff() {
		this.lock.lock();
		try {
			this.stoppingOrAbandoned.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void process(Object item) {
		try {
			if (!this.itemType.isInstance(item)) {
				this.outcomes.rejected(item,
						new IllegalArgumentException(
								"Item of " + item.getClass().getName() + " does not fit the parameter of worker "
										+ this.endpoint.id() + ", a " + this.itemType.getName()));
				return;
			}
			WorkResult result;
			try {
				result = invoke(item);
			}
			catch (Throwable ex) {
				rethrowIfFatal(ex);
				this.outcomes.failed(item, ex);
				return;
			}
			this.outcomes.finished(item, result);
		}
		catch (Throwable ex) {
			// The limiter, a listener or the logging failed: keep the thread alive.
			rethrowIfFatal(ex);
			logger.error(LogMessage.format("Failed to handle the outcome of %s for an item of %s of queue '%s'",
					this.endpoint.id(), item.getClass().getName(), this.queueName), ex);
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

}
