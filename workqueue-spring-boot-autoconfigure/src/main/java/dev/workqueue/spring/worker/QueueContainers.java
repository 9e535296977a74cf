package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;
import org.springframework.core.task.TaskExecutor;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The containers of one queue, one per worker method, and what they share: the queue, its
 * settings, its {@link WorkOutcomes}, and the executor that names their threads
 * {@code workqueue-<queue>-<n>}. It creates the containers and shuts the queue down; the
 * containers do not know it.
 * <p>
 * {@link #beginShutdown} and {@link #awaitShutdown} are called by the thread stopping the
 * registry only, which alone reads and writes {@code waitingAtShutdown} and
 * {@code deadlineNanos}.
 */
final class QueueContainers {

	private static final Log logger = LogFactory.getLog(QueueContainers.class);

	private static final WorkQueueStats NOTHING_LEFT = WorkQueueStats.builder().build();

	private final String queueName;

	private final RateLimitingQueue<Object> queue;

	private final WorkerSettings settings;

	private final TaskExecutor executor;

	private final WorkOutcomes outcomes;

	private final Clock clock;

	private final WorkObservations observations;

	private final List<WorkerContainer> containers = new CopyOnWriteArrayList<>();

	private int waitingAtShutdown;

	private long shutdownStartNanos;

	private long deadlineNanos;

	QueueContainers(String queueName, RateLimitingQueue<Object> queue, WorkerSettings settings, TaskExecutor executor,
			WorkOutcomes outcomes, Clock clock, WorkObservations observations) {
		this.queueName = queueName;
		this.observations = observations;
		this.queue = queue;
		this.settings = settings;
		this.executor = executor;
		this.outcomes = outcomes;
		this.clock = clock;
	}

	/**
	 * Creates the container of {@code endpoint}, not yet started.
	 * @param endpoint the worker method
	 * @param paused whether the queue's workers are paused now
	 * @return the container
	 */
	WorkerContainer addContainer(WorkerEndpoint endpoint, boolean paused) {
		Integer concurrency = endpoint.concurrency();
		WorkerContainer container = new WorkerContainer(endpoint, this.queueName, this.queue, this.outcomes,
				this.executor, this.clock, this.observations, this.settings.pollTimeout(),
				(concurrency != null) ? concurrency : this.settings.concurrency(), paused);
		this.containers.add(container);
		return container;
	}

	/**
	 * Pauses or resumes every container of the queue; the registry keeps whether the
	 * queue is paused.
	 * @param paused {@code true} to stop taking items, {@code false} to take them again
	 */
	void setPaused(boolean paused) {
		this.containers.forEach(paused ? WorkerContainer::pause : WorkerContainer::resume);
	}

	/**
	 * Spreads {@code concurrency} threads over the containers, as evenly as can be, the
	 * first ones taking one more when it does not divide.
	 * @param concurrency the queue's number of worker threads, at least the number of
	 * containers
	 */
	void resize(int concurrency) {
		int count = this.containers.size();
		for (int i = 0; i < count; i++) {
			this.containers.get(i).resize(concurrency / count + ((i < concurrency % count) ? 1 : 0));
		}
	}

	/** Number of worker methods serving the queue. */
	int size() {
		return this.containers.size();
	}

	/**
	 * Forgets the failures the workers counted for {@code item}.
	 * @param item the item
	 */
	void forgetFailures(Object item) {
		this.outcomes.forgetFailures(item);
	}

	/**
	 * Returns how many failures of {@code item} the workers counted; for tests.
	 * @param item the item
	 * @return the count
	 */
	int failures(Object item) {
		return this.outcomes.failures(item);
	}

	/**
	 * Starts the shutdown: the containers stop expecting work, the queue is shut down
	 * (new adds are ignored, delayed items dropped) and the drain deadline is set. Worker
	 * threads keep taking what is queued and end once the queue is empty. Logs at INFO
	 * that the drain starts, with what is in flight and queued and the timeout.
	 * @param nowNanos the clock's reading when the registry began stopping
	 */
	void beginShutdown(long nowNanos) {
		this.containers.forEach(WorkerContainer::stopping);
		WorkQueueStats stats = statsAtShutdown();
		// A shared queue keeps its delayed items in Redis for the other instances.
		this.waitingAtShutdown = this.queue.capability(SharedWorkQueue.class).isPresent() ? 0 : stats.waiting();
		this.queue.shutDown();
		this.shutdownStartNanos = nowNanos;
		this.deadlineNanos = Nanos.add(nowNanos, Nanos.of(this.settings.shutdownTimeout()));
		logger.info(LogMessage.format(
				"Queue '%s' draining: %d in flight, %d queued; waiting at most %dms (its " + "shutdown-timeout)",
				this.queueName, stats.processing(), stats.depth(), timeoutMillis()));
	}

	/**
	 * Waits until every worker thread has ended or the deadline has passed, interrupts
	 * the threads still busy at the deadline, and logs how long the drain took: at INFO
	 * when nothing was left, else at WARN with what was left undone.
	 */
	void awaitShutdown() {
		boolean drained = true;
		for (WorkerContainer container : this.containers) {
			drained &= container.awaitEnd(this.deadlineNanos);
		}
		drained = drained && awaitQueueDrained();
		// Counted before abandoning, which lets interrupted workers finish (and fail)
		// their items: those are reported as in flight.
		WorkQueueStats stats = statsAfterShutdown();
		int dropped = this.waitingAtShutdown + this.outcomes.refusedRequeues();
		long tookMillis = Duration.ofNanos(this.clock.nanoTime() - this.shutdownStartNanos).toMillis();
		if (!drained) {
			this.containers.forEach(WorkerContainer::abandon);
			handBack();
		}
		if (drained && stats.depth() == 0 && stats.processing() == 0 && dropped == 0) {
			logger.info(LogMessage.format("Queue '%s' drained in %dms", this.queueName, tookMillis));
		}
		else {
			logger.warn(LogMessage.format(
					"Queue '%s' stopped with work left%s: %d queued, %d in flight, %d delayed or requeued and dropped "
							+ "(drain took %dms)",
					this.queueName, drained ? "" : " after its shutdown-timeout of " + timeoutMillis() + "ms",
					stats.depth(), stats.processing(), dropped, tookMillis));
		}
	}

	/**
	 * Ends with the queue's {@code shutDownWithDrain}, once the workers have ended: it
	 * waits for the items taken outside them (by a consumer of the application's own) to
	 * be done, on a thread of its own, until the deadline; then that thread is
	 * interrupted, which ends the drain.
	 * @return whether it ended in time
	 */
	private boolean awaitQueueDrained() {
		ReentrantLock lock = new ReentrantLock();
		Condition ended = lock.newCondition();
		AtomicBoolean done = new AtomicBoolean();
		Thread drain = new Thread(() -> {
			try {
				this.queue.shutDownWithDrain();
			}
			catch (RuntimeException ex) {
				logger.debug(LogMessage.format("Queue '%s' could not drain", this.queueName), ex);
			}
			finally {
				lock.lock();
				try {
					done.set(true);
					ended.signalAll();
				}
				finally {
					lock.unlock();
				}
			}
		}, "workqueue-" + this.queueName + "-drain");
		drain.setDaemon(true);
		drain.start();
		lock.lock();
		try {
			while (!done.get()) {
				if (this.clock.nanoTime() - this.deadlineNanos >= 0) {
					drain.interrupt();
					return false;
				}
				this.clock.awaitUntil(lock, ended, this.deadlineNanos);
			}
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			drain.interrupt();
			return false;
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * The queue's stats for the line that says the drain starts; a store out of reach
	 * must not stop the shutdown.
	 */
	private WorkQueueStats statsAtShutdown() {
		try {
			return this.queue.stats();
		}
		catch (RuntimeException ex) {
			logger.debug(LogMessage.format("Queue '%s' could not be read at its shutdown", this.queueName), ex);
			return NOTHING_LEFT;
		}
	}

	/**
	 * The queue's stats for the shutdown report. A shared queue that holds nothing any
	 * more may have closed its connection: this instance then has nothing left to report.
	 */
	private WorkQueueStats statsAfterShutdown() {
		try {
			return this.queue.stats();
		}
		catch (RuntimeException ex) {
			logger.debug(LogMessage.format("Queue '%s' could not be read after its shutdown", this.queueName), ex);
			return NOTHING_LEFT;
		}
	}

	/**
	 * Hands the items still held back to a queue that other processes share, so that they
	 * take them over at once instead of when the leases run out.
	 */
	private void handBack() {
		SharedWorkQueue shared = this.queue.capability(SharedWorkQueue.class).orElse(null);
		if (shared != null) {
			try {
				int handedBack = shared.handBack();
				if (handedBack > 0) {
					logger.warn(LogMessage.format("Queue '%s' handed %d unfinished item(s) back to the shared queue",
							this.queueName, handedBack));
				}
			}
			catch (RuntimeException ex) {
				logger.warn(LogMessage.format(
						"Queue '%s' could not hand its unfinished items back; their leases will run out",
						this.queueName), ex);
			}
		}
	}

	/**
	 * The queue's shutdown-timeout, whose deadline counts from {@link #beginShutdown}.
	 * @return the timeout
	 */
	Duration shutdownTimeout() {
		return this.settings.shutdownTimeout();
	}

	/**
	 * The shutdown-timeout in milliseconds, as long as a deadline of it is: saturated,
	 * where {@code Duration.toMillis} would throw for the longest ones.
	 */
	private long timeoutMillis() {
		return TimeUnit.NANOSECONDS.toMillis(Nanos.of(shutdownTimeout()));
	}

}
