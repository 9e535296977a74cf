package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationTargetException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;
import org.springframework.util.ClassUtils;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkResult;
import dev.workqueue.time.Clock;

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

	private final WorkerEndpoint endpoint;

	private final QueueWorkers queueWorkers;

	private final RateLimitingQueue<Object> queue;

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

	WorkerContainer(WorkerEndpoint endpoint, QueueWorkers queueWorkers, int concurrency) {
		this.endpoint = endpoint;
		this.queueWorkers = queueWorkers;
		this.queue = queueWorkers.queue();
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
				this.queueWorkers.executor().execute(this::work);
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
	}

	/**
	 * Waits until every thread has ended, at most until {@code deadlineNanos}.
	 * @param clock the clock the deadline is measured on
	 * @param deadlineNanos the reading of {@code clock} to stop waiting at
	 * @return whether every thread has ended; {@code false} also if the calling thread
	 * was interrupted, whose interrupt status is then kept
	 */
	boolean awaitEnd(Clock clock, long deadlineNanos) {
		this.lock.lock();
		try {
			while (this.aliveThreads > 0 && clock.nanoTime() < deadlineNanos) {
				clock.awaitUntil(this.lock, this.threadEnded, deadlineNanos);
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
		this.threads.forEach(Thread::interrupt);
	}

	WorkerPoolStatus status() {
		return new WorkerPoolStatus(this.queueWorkers.name(), this.endpoint.id(), this.concurrency, aliveThreads(),
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
			while (!this.abandoned) {
				Object item;
				try {
					item = this.queue.get();
				}
				catch (InterruptedException ex) {
					// Only abandon() interrupts on purpose, and it sets the flag first.
					continue;
				}
				if (item == null) {
					return;
				}
				try {
					process(item);
				}
				finally {
					this.queue.done(item);
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

	private void process(Object item) {
		try {
			if (!this.itemType.isInstance(item)) {
				this.queueWorkers.rejected(item,
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
				this.queueWorkers.failed(item, ex);
				return;
			}
			this.queueWorkers.finished(item, result);
		}
		catch (Throwable ex) {
			// The limiter, a listener or the logging failed: keep the thread alive.
			rethrowIfFatal(ex);
			logger.error(LogMessage.format("Failed to handle the outcome of %s for an item of queue '%s'",
					this.endpoint.id(), this.queueWorkers.name()), ex);
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
