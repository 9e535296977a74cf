package dev.workqueue.spring.worker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.log.LogMessage;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.util.Assert;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.time.Clock;

/**
 * Runs the {@link dev.workqueue.spring.QueueWorker @QueueWorker} methods found by
 * {@link QueueWorkerAnnotationBeanPostProcessor}: a {@link SmartLifecycle} that, once
 * every singleton exists, starts one container of {@code concurrency} threads per worker
 * method, and on context close drains the queues and stops the threads.
 * <p>
 * Threads are named {@code workqueue-<queue>-<n>}, are daemon threads, and are virtual
 * threads when asked for (on Java 21 and later, {@code spring.threads.virtual.enabled}).
 * So that an application made only of workers stays up while they run, the registry
 * starts one non-daemon thread, {@code workqueue-keep-alive}, with its first container
 * and ends it once the workers are stopped (see {@link #setKeepAlive(boolean)}): without
 * it such an application, having no web server, would exit as soon as its {@code main}
 * returns. An application without worker methods is not kept alive.
 * <p>
 * <b>Stopping.</b> Every queue with workers is shut down at once: new adds are ignored
 * and delayed items dropped, as {@link dev.workqueue.WorkQueue#shutDown()} does (a queue
 * shared through Redis or a database keeps them there for the other instances, and takes
 * back an item that fails now, rather than drop its retry). The workers keep taking what
 * is queued and finish what is in flight; each queue is given its
 * {@code shutdown-timeout}, all measured from the same moment so that the queues drain in
 * parallel and closing the context waits at most the longest timeout. Threads still busy
 * at their queue's deadline are interrupted and take no further item. For each queue that
 * stops with work left (queued, in flight, or delayed and dropped) a WARN line gives the
 * counts. {@link #stop(Runnable)} does all this before returning, so Spring's
 * {@code spring.lifecycle.timeout-per-shutdown-phase} does not cut the drain short: the
 * {@code shutdown-timeout}s alone bound it. Stopping is final: the queues cannot be
 * restarted, so the registry is not {@linkplain #isPauseable() pauseable} and
 * {@link #start()} after {@link #stop()} throws {@link IllegalStateException}.
 * <p>
 * <b>Phase.</b> {@link #PHASE} is {@code SmartLifecycle.DEFAULT_PHASE - 3072}. Spring
 * Boot gracefully shuts down the embedded web server in phase
 * {@code DEFAULT_PHASE - 1024}
 * ({@code WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE}) and stops it in phase
 * {@code DEFAULT_PHASE - 2048} ({@code START_STOP_LIFECYCLE_PHASE}); phases stop from the
 * highest down. Stopping below both means the workers drain only once the web server has
 * finished its in-flight requests and stopped, so items those requests add are still
 * processed. Message listener containers (Spring Kafka's, at {@code DEFAULT_PHASE - 100})
 * and schedulers (at {@code DEFAULT_PHASE}) also stop before. At start-up the order is
 * reversed: the workers run before the web server takes requests.
 * <p>
 * Thread-safe. {@code lock} guards {@code workersByQueue} and state changes;
 * {@code containers} is a copy-on-write snapshot read without locking by
 * {@link #containers()}. Stopping waits without holding the lock.
 */
public class WorkerContainerRegistry implements SmartLifecycle, DisposableBean {

	/**
	 * The {@link SmartLifecycle} phase of the registry: below the phases in which Spring
	 * Boot gracefully shuts down and stops the embedded web server, so that workers drain
	 * after it.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 3072;

	private static final Log logger = LogFactory.getLog(WorkerContainerRegistry.class);

	private final QueueWorkerAnnotationBeanPostProcessor endpoints;

	private final WorkQueueRegistry queues;

	private final Function<String, WorkerSettings> settings;

	private final Function<String, FailureTracking> failureTracking;

	private final Clock clock;

	private final ApplicationEventPublisher publisher;

	private final boolean virtualThreads;

	private volatile WorkObservations observations = WorkObservations.NONE;

	private volatile ItemLogging itemLogging = ItemLogging.TEXT;

	/** Started with the first container, stopped after the workers; guarded by lock. */
	private @Nullable KeepAlive keepAlive = new KeepAlive("workqueue-keep-alive");

	private final Object lock = new Object();

	private final Map<String, QueueContainers> containersByQueue = new LinkedHashMap<>();

	/**
	 * Queues whose workers are paused, including those not started yet: the one record of
	 * it, which each container gets when made and at each change. Guarded by lock.
	 */
	private final Set<String> pausedQueues = new HashSet<>();

	private volatile State state = State.NEW;

	private volatile List<WorkerContainer> containers = List.of();

	/**
	 * Creates a registry.
	 * @param endpoints finds the worker methods
	 * @param queues the queues the workers take items from
	 * @param settings the worker settings of a queue, by queue name
	 * @param failureTracking where the workers of a queue count failures, by queue name
	 * @param clock the clock that measures the shutdown timeouts
	 * @param publisher publishes {@link dev.workqueue.spring.WorkItemGivenUpEvent}s
	 * @param virtualThreads whether to run the workers on virtual threads; only on Java
	 * 21 and later
	 */
	public WorkerContainerRegistry(QueueWorkerAnnotationBeanPostProcessor endpoints, WorkQueueRegistry queues,
			Function<String, WorkerSettings> settings, Function<String, FailureTracking> failureTracking, Clock clock,
			ApplicationEventPublisher publisher, boolean virtualThreads) {
		this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
		this.queues = Objects.requireNonNull(queues, "queues");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.failureTracking = Objects.requireNonNull(failureTracking, "failureTracking");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.publisher = Objects.requireNonNull(publisher, "publisher");
		this.virtualThreads = virtualThreads;
	}

	/**
	 * Sets how each worker invocation is observed, for tracing; none by default. Takes
	 * effect for the containers started after the call.
	 * @param observations the observations
	 */
	public void setObservations(WorkObservations observations) {
		this.observations = Objects.requireNonNull(observations, "observations");
	}

	/**
	 * Sets whether a non-daemon thread keeps the JVM running while the workers run;
	 * {@code true} by default. With {@code false} the workers are daemon threads only,
	 * and an application without another non-daemon thread (a web server, or
	 * {@code spring.main.keep-alive}) exits when its {@code main} returns. Takes effect
	 * if called before the first container starts.
	 * @param keepAlive whether to keep the JVM running while the workers run
	 */
	public void setKeepAlive(boolean keepAlive) {
		synchronized (this.lock) {
			this.keepAlive = keepAlive ? new KeepAlive("workqueue-keep-alive") : null;
		}
	}

	/**
	 * Sets how items appear in the workers' log lines ({@code workqueue.log-items});
	 * {@link ItemLogging#TEXT} unless set. Takes effect for the queues whose workers
	 * start after the call.
	 * @param itemLogging how items are logged
	 */
	public void setItemLogging(ItemLogging itemLogging) {
		this.itemLogging = Objects.requireNonNull(itemLogging, "itemLogging");
	}

	/**
	 * Starts a container for every worker method found so far, and for each one found
	 * later. Does nothing if already running.
	 * @throws IllegalStateException if the registry was stopped
	 */
	@Override
	public void start() {
		synchronized (this.lock) {
			if (this.state == State.RUNNING) {
				return;
			}
			Assert.state(this.state == State.NEW, "Workers cannot be restarted: their queues are shut down");
			this.state = State.RUNNING;
		}
		this.endpoints.onEndpoint(this::startContainer);
	}

	private void startContainer(WorkerEndpoint endpoint) {
		synchronized (this.lock) {
			if (this.state != State.RUNNING) {
				logger.warn(LogMessage.format("Not starting worker %s of queue '%s': the workers are stopped",
						endpoint.id(), endpoint.queue()));
				return;
			}
			WorkerContainer container = this.containersByQueue.computeIfAbsent(endpoint.queue(), this::queueContainers)
				.addContainer(endpoint, this.pausedQueues.contains(endpoint.queue()));
			List<WorkerContainer> updated = new ArrayList<>(this.containers);
			updated.add(container);
			this.containers = List.copyOf(updated);
			container.start();
			if (this.keepAlive != null) {
				this.keepAlive.start();
			}
		}
	}

	private QueueContainers queueContainers(String name) {
		RateLimitingQueue<Object> queue = this.queues.get(name);
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("workqueue-" + name + "-");
		executor.setDaemon(true);
		executor.setVirtualThreads(this.virtualThreads);
		WorkerSettings settings = this.settings.apply(name);
		return new QueueContainers(
				name, queue, settings, executor, new WorkOutcomes(name, queue, settings,
						this.failureTracking.apply(name), this.publisher, this.itemLogging),
				this.clock, this.observations);
	}

	/**
	 * Drains the queues and stops the workers, waiting at most the longest
	 * {@code shutdown-timeout}, each queue's workers at most its own. Does nothing if not
	 * running.
	 */
	@Override
	public void stop() {
		List<QueueContainers> stopping;
		synchronized (this.lock) {
			boolean running = this.state == State.RUNNING;
			this.state = State.STOPPED;
			if (!running) {
				return;
			}
			stopping = List.copyOf(this.containersByQueue.values());
		}
		try {
			long nowNanos = this.clock.nanoTime();
			// Shut every queue down before waiting on any, so that they drain in
			// parallel.
			stopping.forEach((group) -> group.beginShutdown(nowNanos));
			// Soonest deadline first: each queue's threads are interrupted at its own
			// deadline, not once a queue with a longer one is done.
			stopping.stream()
				.sorted(Comparator.comparing(QueueContainers::shutdownTimeout))
				.forEach(QueueContainers::awaitShutdown);
		}
		finally {
			// Only now: the JVM must not exit (SIGTERM or not) while the workers drain.
			stopKeepAlive();
		}
	}

	private void stopKeepAlive() {
		synchronized (this.lock) {
			if (this.keepAlive != null) {
				this.keepAlive.stop();
			}
		}
	}

	/**
	 * Returns whether the keep-alive thread is alive; for tests.
	 * @return {@code true} while it keeps the JVM running
	 */
	boolean isKeepingAlive() {
		synchronized (this.lock) {
			return this.keepAlive != null && this.keepAlive.isAlive();
		}
	}

	@Override
	public void stop(Runnable callback) {
		try {
			stop();
		}
		finally {
			callback.run();
		}
	}

	@Override
	public boolean isRunning() {
		return this.state == State.RUNNING;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public boolean isPauseable() {
		return false;
	}

	/**
	 * Stops the workers if the context did not, for example when its refresh failed.
	 */
	@Override
	public void destroy() {
		stop();
	}

	/**
	 * Returns the state of every container, one per worker method, in the order they were
	 * started. Empty before {@link #start()}.
	 * @return the containers' states, taken when called
	 */
	public List<WorkerContainerStatus> containers() {
		return this.containers.stream().map(WorkerContainer::status).toList();
	}

	/**
	 * Pauses or resumes the workers of a queue. Paused workers finish the items in hand
	 * and take no more until resumed; adding items is not affected. A queue paused before
	 * its workers start (a lazy worker bean) starts them paused. A paused queue stays
	 * paused when the application stops.
	 * @param queueName the queue's name
	 * @param paused {@code true} to pause, {@code false} to resume
	 * @throws IllegalArgumentException if there is no such queue, or the workers are
	 * stopped
	 */
	public void setPaused(String queueName, boolean paused) {
		checkQueue(queueName);
		synchronized (this.lock) {
			checkRunning(queueName);
			if (paused) {
				this.pausedQueues.add(queueName);
			}
			else {
				this.pausedQueues.remove(queueName);
			}
			QueueContainers group = this.containersByQueue.get(queueName);
			if (group != null) {
				group.setPaused(paused);
			}
		}
	}

	/**
	 * Returns whether the workers of a queue are paused.
	 * @param queueName the queue's name
	 * @return {@code true} if paused
	 */
	public boolean isPaused(String queueName) {
		synchronized (this.lock) {
			return this.pausedQueues.contains(queueName);
		}
	}

	/**
	 * Sets how many threads serve a queue from now on, spread over its worker methods:
	 * missing threads start at once, surplus ones end after their item.
	 * @param queueName the queue's name
	 * @param concurrency the number of threads, at least the number of worker methods
	 * serving the queue (one thread each), at most
	 * {@value WorkerSettings#MAX_CONCURRENCY}
	 * @throws IllegalArgumentException if no running worker serves the queue or
	 * {@code concurrency} is too small or too large
	 */
	public void setConcurrency(String queueName, int concurrency) {
		if (concurrency > WorkerSettings.MAX_CONCURRENCY) {
			throw new IllegalArgumentException("concurrency must be at most " + WorkerSettings.MAX_CONCURRENCY
					+ " for queue '" + queueName + "', was " + concurrency);
		}
		checkQueue(queueName);
		synchronized (this.lock) {
			checkRunning(queueName);
			QueueContainers group = this.containersByQueue.get(queueName);
			if (group == null) {
				throw new IllegalArgumentException("No worker serves queue '" + queueName + "'");
			}
			if (concurrency < group.size()) {
				throw new IllegalArgumentException("concurrency must be at least " + group.size() + " for queue '"
						+ queueName + "' (one thread per worker method), was " + concurrency);
			}
			group.resize(concurrency);
		}
	}

	/**
	 * Forgets the failures the workers of a queue counted for an item towards
	 * {@code max-retries}, so that its next failure counts as its first: in this JVM for
	 * a memory queue, in the store for a shared one (for every instance). The queue's own
	 * history of the item (its rate limiter's) is the caller's to forget.
	 * @param queueName the queue's name
	 * @param item the item
	 * @throws IllegalArgumentException if there is no such queue
	 */
	public void forgetFailures(String queueName, Object item) {
		checkQueue(queueName);
		Objects.requireNonNull(item, "item");
		QueueContainers group;
		synchronized (this.lock) {
			group = this.containersByQueue.get(queueName);
		}
		// Outside the lock: a shared store's count is forgotten in a round trip.
		if (group != null) {
			group.forgetFailures(item);
		}
		else {
			this.failureTracking.apply(queueName).failures().forget(item);
		}
	}

	/** Called without the lock: the registry may look into the bean factory. */
	private void checkQueue(String queueName) {
		Objects.requireNonNull(queueName, "queueName");
		if (!this.queues.names().contains(queueName)) {
			throw new IllegalArgumentException("No work queue named '" + queueName + "'");
		}
	}

	/** Called with the lock held. */
	private void checkRunning(String queueName) {
		if (this.state == State.STOPPED) {
			throw new IllegalArgumentException("The workers of queue '" + queueName + "' are stopped");
		}
	}

	/**
	 * Returns how many failures of an item the workers of a queue counted; for tests.
	 * @param queueName the queue's name
	 * @param item the item
	 * @return the count, 0 for a queue without workers
	 */
	int failures(String queueName, Object item) {
		synchronized (this.lock) {
			QueueContainers group = this.containersByQueue.get(queueName);
			return (group != null) ? group.failures(item) : 0;
		}
	}

	private enum State {

		NEW, RUNNING, STOPPED

	}

}
