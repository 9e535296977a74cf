package dev.workqueue.spring.actuate.endpoint;

import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.core.log.LogMessage;

import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.worker.WorkerSettings;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.spring.worker.WorkerContainerStatus;

/**
 * {@link Endpoint @Endpoint} describing the work queues: for each, its counts (ready,
 * processing, waiting, retries), the worker threads serving it and their state, and its
 * rate limiter. Item values are never shown: they may hold personal data.
 * <p>
 * Each read takes the queues and containers afresh; the figures of one queue come from
 * one {@link WorkQueue#stats()} reading. A {@link PriorityQueue} is described with its
 * ready items and the age of its oldest ready item per priority, from one
 * {@link PriorityQueue#readyLevels()} reading. A queue that has a {@link QueueInspector}
 * also shows how many given-up items it keeps, and is paused when its inspector says so
 * (paused in its store, on every instance) as when its workers here are.
 * <p>
 * <b>Runtime control.</b> The {@linkplain #control write operation} pauses or resumes a
 * queue's workers and sets their number of threads. The endpoint's default access is
 * read-only, so it is off until the application grants
 * {@code management.endpoint.workqueues.access=unrestricted}. Each change is logged at
 * INFO with the caller's principal when there is one.
 */
@Endpoint(id = "workqueues", defaultAccess = Access.READ_ONLY)
public final class WorkQueuesEndpoint {

	/**
	 * The most worker threads the write operation gives a queue: the cap of
	 * {@link WorkerSettings#MAX_CONCURRENCY} that start-up applies too.
	 */
	public static final int MAX_CONCURRENCY = WorkerSettings.MAX_CONCURRENCY;

	private static final Log logger = LogFactory.getLog(WorkQueuesEndpoint.class);

	private static final double NANOS_PER_SECOND = 1e9;

	private final WorkQueueRegistry queues;

	private final @Nullable WorkerContainerRegistry workers;

	private final Function<String, Optional<RateLimiter<?>>> rateLimiters;

	private final Function<String, String> backends;

	/**
	 * Creates an endpoint describing the queues of {@code queues}.
	 * @param queues the queues to describe
	 * @param workers the worker containers serving them, {@code null} when there are none
	 * @param rateLimiters the rate limiter of a queue, by queue name, when known
	 */
	public WorkQueuesEndpoint(WorkQueueRegistry queues, @Nullable WorkerContainerRegistry workers,
			Function<String, Optional<RateLimiter<?>>> rateLimiters) {
		this(queues, workers, rateLimiters, (name) -> "unknown");
	}

	/**
	 * Creates an endpoint describing the queues of {@code queues} and their backends.
	 * @param queues the queues to describe
	 * @param workers the worker containers serving them, {@code null} when there are none
	 * @param rateLimiters the rate limiter of a queue, by queue name, when known
	 * @param backends the backend of a queue ({@code memory}, {@code redis}, ...), by
	 * queue name, {@code unknown} when not known
	 */
	public WorkQueuesEndpoint(WorkQueueRegistry queues, @Nullable WorkerContainerRegistry workers,
			Function<String, Optional<RateLimiter<?>>> rateLimiters, Function<String, String> backends) {
		this.queues = Objects.requireNonNull(queues, "queues");
		this.workers = workers;
		this.rateLimiters = Objects.requireNonNull(rateLimiters, "rateLimiters");
		this.backends = Objects.requireNonNull(backends, "backends");
	}

	/**
	 * Describes every queue, sorted by name.
	 * @return the queues
	 */
	@ReadOperation
	public WorkQueuesDescriptor queues() {
		Map<String, List<WorkerContainerStatus>> containers = containersByQueue();
		return new WorkQueuesDescriptor(this.queues.names()
			.stream()
			.sorted()
			.map((name) -> describe(name, containers.getOrDefault(name, List.of())))
			.toList());
	}

	/**
	 * Describes the queue named {@code name}.
	 * @param name the queue's name
	 * @return the queue, or {@code null} (404) when there is no such queue
	 */
	@ReadOperation
	public @Nullable WorkQueueDescriptor queue(@Selector String name) {
		if (!this.queues.names().contains(name)) {
			return null;
		}
		return describe(name, containersByQueue().getOrDefault(name, List.of()));
	}

	/**
	 * Pauses or resumes the workers of the queue named {@code name}, and/or sets their
	 * number of threads. Pausing lets the items in hand finish and takes no more; adds
	 * are not affected. A new concurrency is spread over the queue's worker methods.
	 * @param name the queue's name
	 * @param paused {@code true} to pause, {@code false} to resume, {@code null} to leave
	 * as is
	 * @param concurrency the queue's number of worker threads, from 1 to
	 * {@value #MAX_CONCURRENCY}, {@code null} to leave as is
	 * @param securityContext who asks, for the log
	 * @return the queue afterwards, or {@code null} (404) when there is no such queue
	 * @throws InvalidEndpointRequestException (400) for a request without a change, a
	 * concurrency out of range or for a queue no worker serves, or workers that are
	 * stopped
	 */
	@WriteOperation
	public @Nullable WorkQueueDescriptor control(@Selector String name, @Nullable Boolean paused,
			@Nullable Integer concurrency, SecurityContext securityContext) {
		if (!this.queues.names().contains(name)) {
			return null;
		}
		if (paused == null && concurrency == null) {
			throw new InvalidControlRequestException(null, "Give " + ControlRequest.EXPECTED);
		}
		if (concurrency != null && (concurrency < 1 || concurrency > MAX_CONCURRENCY)) {
			throw new InvalidControlRequestException(ControlRequest.CONCURRENCY,
					"concurrency must be between 1 and " + MAX_CONCURRENCY + ", was " + concurrency);
		}
		if (this.workers == null) {
			throw new InvalidControlRequestException(null, "No worker serves queue '" + name + "'");
		}
		String caller = caller(securityContext);
		if (concurrency != null) {
			try {
				this.workers.setConcurrency(name, concurrency);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidControlRequestException(ControlRequest.CONCURRENCY, ex.getMessage());
			}
			logger.info(LogMessage.format("Queue '%s': concurrency set to %d by %s", name, concurrency, caller));
		}
		if (paused != null) {
			try {
				this.workers.setPaused(name, paused);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidControlRequestException(null, ex.getMessage());
			}
			// The queue shows paused while its store says so (a pause from the console):
			// a resume lifts that pause too. A pause stays this instance's workers'.
			boolean lifted = !paused && liftStorePause(name);
			logger.info(LogMessage.format("Queue '%s': workers %s by %s", name,
					paused ? "paused" : (lifted ? "resumed, and the queue's pause in its store lifted," : "resumed"),
					caller));
		}
		return describe(name, containersByQueue().getOrDefault(name, List.of()));
	}

	/**
	 * Lifts the queue's pause in its store, if it has one: whether it did. A store out of
	 * reach is said and lifts nothing: the workers are resumed all the same, and the
	 * answer describes the queue as unreadable.
	 */
	private boolean liftStorePause(String name) {
		try {
			Optional<QueueInspector> inspector = this.queues.get(name)
				.capability(QueueInspector.class)
				.filter(QueueInspector::paused);
			inspector.ifPresent(QueueInspector::resume);
			return inspector.isPresent();
		}
		catch (RuntimeException ex) {
			logger.warn(LogMessage.format("Queue '%s': a pause in its store, if any, not lifted: %s", name,
					ex.getMessage()));
			return false;
		}
	}

	private static String caller(SecurityContext securityContext) {
		Principal principal = securityContext.getPrincipal();
		return (principal != null) ? "'" + principal.getName() + "'" : "an unauthenticated caller";
	}

	private Map<String, List<WorkerContainerStatus>> containersByQueue() {
		if (this.workers == null) {
			return Map.of();
		}
		return this.workers.containers().stream().collect(Collectors.groupingBy(WorkerContainerStatus::queue));
	}

	private WorkQueueDescriptor describe(String name, List<WorkerContainerStatus> containers) {
		WorkQueue<?> queue = this.queues.get(name);
		int concurrency = 0;
		int workersAlive = 0;
		for (WorkerContainerStatus container : containers) {
			concurrency += container.concurrency();
			workersAlive += container.aliveThreads();
		}
		List<WorkerDescriptor> workers = containers.stream()
			.map((container) -> new WorkerDescriptor(container.worker(), container.concurrency(),
					container.aliveThreads(), container.running(), container.paused()))
			.toList();
		boolean workersPaused = this.workers != null && this.workers.isPaused(name);
		String rateLimiter = this.rateLimiters.apply(name).map(Object::toString).orElse(null);
		String backend = this.backends.apply(name);
		Optional<QueueInspector> inspector = queue.capability(QueueInspector.class);
		WorkQueueStats stats;
		List<PriorityQueue.Level> levels;
		@Nullable Integer givenUp;
		boolean paused;
		try {
			stats = queue.stats();
			levels = (queue instanceof PriorityQueue<?> priorityQueue) ? priorityQueue.readyLevels() : null;
			givenUp = inspector.map(QueueInspector::givenUpCount).orElse(null);
			paused = workersPaused || inspector.map(QueueInspector::paused).orElse(false);
		}
		catch (RuntimeException ex) {
			// A shared store out of reach: say so for this queue and describe the rest;
			// health is DOWN with the same reason, so no stack trace per request.
			logger.debug(LogMessage.format("Could not read queue '%s'", name), ex);
			return new WorkQueueDescriptor(name, backend, null, null, null, concurrency, null, null, workersAlive, null,
					null, rateLimiter, queue.isShuttingDown(), workersPaused, workers, null, null, reason(ex));
		}
		// Ages only from a queue that tracks them (-1: built without metrics or guard).
		List<PriorityQueue.Level> aged = (levels != null
				&& levels.stream().allMatch((level) -> level.oldestReadyNanos() >= 0)) ? levels : null;
		return new WorkQueueDescriptor(name, backend, stats.depth(), stats.processing(), stats.waiting(), concurrency,
				stats.retries(), givenUp, workersAlive, seconds(stats.headQueuedNanos()),
				seconds(stats.longestRunningProcessorNanos()), rateLimiter, queue.isShuttingDown(), paused, workers,
				byPriority(levels, PriorityQueue.Level::ready),
				byPriority(aged, (level) -> seconds(level.oldestReadyNanos())), null);
	}

	/** Why a queue could not be read, as its exception and its causes say it. */
	private static String reason(Throwable ex) {
		StringBuilder reason = new StringBuilder("cannot read the queue: ");
		Throwable cause = ex;
		for (int depth = 0; cause != null && depth < 4; depth++) {
			if (depth > 0) {
				reason.append("; caused by: ");
			}
			reason.append((cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getName());
			cause = (cause.getCause() != cause) ? cause.getCause() : null;
		}
		return reason.toString();
	}

	/**
	 * A figure of each level, by priority as a string, highest priority first;
	 * {@code null} for a queue without priorities.
	 */
	private static <V> @Nullable Map<String, V> byPriority(@Nullable List<PriorityQueue.Level> levels,
			Function<PriorityQueue.Level, V> figure) {
		if (levels == null) {
			return null;
		}
		Map<String, V> byPriority = new LinkedHashMap<>();
		levels.forEach((level) -> byPriority.put(Integer.toString(level.priority()), figure.apply(level)));
		return byPriority;
	}

	private static double seconds(long nanos) {
		return nanos / NANOS_PER_SECOND;
	}

	/**
	 * Description of every queue.
	 *
	 * @param queues the queues, sorted by name
	 */
	public record WorkQueuesDescriptor(List<WorkQueueDescriptor> queues) implements OperationResponseBody {

	}

	/**
	 * Description of one queue. The two ages read zero unless the queue records metrics.
	 *
	 * @param name the queue's name
	 * @param backend where the queue keeps its items: its {@code backend} property's
	 * value ({@code memory}, {@code redis}, ...)
	 * @param depth items ready to be handed out; {@code null} (left out of the JSON) when
	 * the queue could not be read, as for the other figures read from the queue
	 * @param processing items handed out and not yet done; for a queue shared through
	 * Redis or a database, the items under lease in every instance
	 * @param waiting items waiting for a delay
	 * @param concurrency worker threads serving the queue, summed over its worker
	 * containers
	 * @param retries delayed adds so far, retries included
	 * @param givenUp given-up items the queue keeps (see
	 * {@link QueueInspector#givenUpCount()}); {@code null} (left out of the JSON) for a
	 * queue without an inspector, or when the queue could not be read
	 * @param workersAlive worker threads alive, summed over its worker containers
	 * @param nextItemAgeSeconds how long the ready item next in line has been queued (an
	 * item added again while processing lines up behind newer ones, so this is not always
	 * the oldest)
	 * @param longestRunningSeconds how long the item in process for the longest has been
	 * in process
	 * @param rateLimiter the rate limiter in use, {@code null} when unknown
	 * @param shuttingDown whether the queue is shut down
	 * @param paused whether the queue hands out no item: its workers here are paused, or
	 * its inspector says the queue is paused (in its store, for every instance)
	 * @param workers the worker containers serving the queue
	 * @param priorities for a priority queue, its ready items by priority (the priority
	 * as a string, highest first, only priorities with ready items); {@code null}
	 * otherwise (left out of the JSON)
	 * @param oldestReadySeconds for a priority queue, by priority as in
	 * {@code priorities}, how long the item ready longest has been ready, in seconds
	 * (what the starvation timeout is compared with); {@code null} otherwise, left out of
	 * the JSON
	 * @param error why the queue could not be read (its store is out of reach), its
	 * figures then left out; {@code null} (left out of the JSON) when it was read
	 */
	public record WorkQueueDescriptor(String name, String backend, @Nullable Integer depth,
			@Nullable Integer processing, @Nullable Integer waiting, int concurrency, @Nullable Long retries,
			@Nullable Integer givenUp, int workersAlive, @Nullable Double nextItemAgeSeconds,
			@Nullable Double longestRunningSeconds, @Nullable String rateLimiter, boolean shuttingDown, boolean paused,
			List<WorkerDescriptor> workers, @Nullable Map<String, Integer> priorities,
			@Nullable Map<String, Double> oldestReadySeconds, @Nullable String error) implements OperationResponseBody {

	}

	/**
	 * Description of one worker container.
	 *
	 * @param worker the worker method
	 * @param concurrency threads the container runs
	 * @param aliveThreads threads alive
	 * @param running whether the container is running (a paused one is)
	 * @param paused whether its threads are paused
	 */
	public record WorkerDescriptor(String worker, int concurrency, int aliveThreads, boolean running, boolean paused) {

	}

}
