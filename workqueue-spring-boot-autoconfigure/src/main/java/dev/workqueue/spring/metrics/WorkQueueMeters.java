package dev.workqueue.spring.metrics;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;

import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.WorkQueues;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.Clock;

/**
 * The Micrometer meters of work queues in one {@link MeterRegistry}, named after
 * Kubernetes client-go's workqueue metrics and tagged {@code name} with the queue's name,
 * so that the Prometheus series ({@code workqueue_depth}, {@code workqueue_adds_total},
 * {@code workqueue_queue_duration_seconds_bucket}, ...) match those of Kubernetes
 * controllers and their dashboards.
 * <p>
 * A queue's meters come in two halves, matching core's two halves of metrics:
 * <ul>
 * <li>{@link #metrics(String)} registers the counters ({@code workqueue.adds},
 * {@code workqueue.retries}) and timers ({@code workqueue.queue.duration},
 * {@code workqueue.work.duration}) and returns the {@link WorkQueueMetrics} hook that
 * records into them, to pass to {@link WorkQueues.Builder#metrics} before the queue is
 * built; {@link #metrics(String, boolean) metrics(name, false)} leaves the two timers
 * out;</li>
 * <li>{@link #bindGauges(String, WorkQueue)} registers the gauges
 * ({@code workqueue.depth}, {@code workqueue.unfinished.work},
 * {@code workqueue.longest.running.processor}, {@code workqueue.delayed.items}), computed
 * from {@link WorkQueue#stats()} when the registry reads them: a queue shared by several
 * processes is read once for all its gauges in a scrape (one Redis round trip), a queue
 * of this process by each gauge. They hold the queue weakly: a discarded queue is not
 * kept alive (its gauges then read {@code NaN} until removed). A {@link PriorityQueue}
 * also gets the gauges {@code workqueue.depth.by.priority}, tagged {@code priority} too:
 * its ready items per priority, at most 25 priority values, the rest summed under
 * {@code priority="other"} (see {@link PriorityDepthGauges}). The gauge of a priority is
 * registered as soon as the priority has ready items: the hook of the queue's
 * {@link #metrics(String) metrics} notes its adds, and one thread of this object,
 * {@code workqueue-priority-gauges}, reads the new levels and registers their gauges, at
 * most once per 10 ms per queue (per 500 ms for a shared queue), never on the adding
 * thread; {@link #close()} ends it.</li>
 * </ul>
 * {@link #remove(String)} unregisters every meter of a queue registered here. The timers
 * publish histogram buckets at client-go's boundaries (10 ns to 10 s, powers of ten), so
 * that {@code histogram_quantile} queries written for Kubernetes controllers work on
 * these series.
 * <p>
 * <b>Without latency timers.</b> Two timer recordings per item (about 134 ns on the
 * Prometheus registry) cost more than handing the item off on a queue that moves millions
 * of items a second. A queue whose meters are registered without them records no
 * durations at all (its hook's {@link WorkQueueMetrics#recordsDurations()} is
 * {@code false}, so the queue does not measure them either), and the timers are not
 * registered, rather than left reading zero as if nothing ever waited. Everything else,
 * the counters and the gauges (unfinished work and longest running processor included),
 * is the same.
 * <p>
 * Thread-safe. Registering and removing are meant for queue creation and disposal and
 * take this object's lock; the hooks returned by {@link #metrics(String, boolean)} never
 * do.
 */
public final class WorkQueueMeters implements AutoCloseable {

	static final String NAME_TAG = "name";

	static final String DEPTH = "workqueue.depth";

	static final String ADDS = "workqueue.adds";

	static final String QUEUE_DURATION = "workqueue.queue.duration";

	static final String WORK_DURATION = "workqueue.work.duration";

	static final String UNFINISHED_WORK = "workqueue.unfinished.work";

	static final String LONGEST_RUNNING_PROCESSOR = "workqueue.longest.running.processor";

	static final String RETRIES = "workqueue.retries";

	static final String DELAYED_ITEMS = "workqueue.delayed.items";

	static final String STALLED = "workqueue.stalled";

	static final String DEPTH_BY_PRIORITY = "workqueue.depth.by.priority";

	/** What a handle that does not report the shared figures reads. */
	private static final WorkQueueStats NOTHING = WorkQueueStats.builder().build();

	/**
	 * The histogram boundaries of both timers: component-base's
	 * {@code ExponentialBuckets(10e-9, 10, 10)}, 10 ns to 10 s.
	 */
	private static final Duration[] DURATION_BUCKETS = { Duration.ofNanos(10), Duration.ofNanos(100),
			Duration.ofNanos(1_000), Duration.ofNanos(10_000), Duration.ofNanos(100_000), Duration.ofMillis(1),
			Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(10) };

	/**
	 * Shortest time between two scans of a queue of this process for new priority levels.
	 */
	static final long LEVEL_SCAN_INTERVAL_NANOS = 10_000_000L;

	private final MeterRegistry registry;

	/** Meters registered here, by queue name; guarded by {@code this}. */
	private final Map<String, Set<Meter>> metersByQueue = new HashMap<>();

	/** The watch of each queue's priority levels, by queue name; guarded by this. */
	private final Map<String, PriorityLevelWatch> levelWatches = new HashMap<>();

	private final PriorityLevelScanner levelScanner = new PriorityLevelScanner(Clock.system());

	/**
	 * Creates the meters of work queues in {@code registry}.
	 * @param registry the registry to register them in
	 */
	public WorkQueueMeters(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry");
	}

	/**
	 * Registers the counters and timers of the queue named {@code queueName} and returns
	 * the hook recording into them: {@link #metrics(String, boolean) metrics(queueName,
	 * true)}.
	 * @param queueName the queue's name, the value of the {@code name} tag
	 * @return the hook to pass to {@link WorkQueues.Builder#metrics}
	 */
	public WorkQueueMetrics metrics(String queueName) {
		return metrics(queueName, true);
	}

	/**
	 * Registers the counters of the queue named {@code queueName}, and its two latency
	 * timers ({@code workqueue.queue.duration}, {@code workqueue.work.duration}) when
	 * {@code latencyTimers} is {@code true}, and returns the hook recording into them.
	 * Without the timers, the hook answers {@code false} to
	 * {@link WorkQueueMetrics#recordsDurations()} and the timers are not registered.
	 * Calling it again for the same name returns a hook recording into the same meters.
	 * @param queueName the queue's name, the value of the {@code name} tag
	 * @param latencyTimers whether to register and record the two latency timers
	 * @return the hook to pass to {@link WorkQueues.Builder#metrics}
	 */
	public WorkQueueMetrics metrics(String queueName, boolean latencyTimers) {
		Objects.requireNonNull(queueName, "queueName");
		Counter adds = Counter.builder(ADDS)
			.description("Items added to the work queue; adding an item already queued does not count")
			.tag(NAME_TAG, queueName)
			.register(this.registry);
		Counter retries = Counter.builder(RETRIES)
			.description("Items added to the work queue with a delay, retries included")
			.tag(NAME_TAG, queueName)
			.register(this.registry);
		Timer queueDuration = latencyTimers
				? timer(QUEUE_DURATION, "Time items wait in the work queue before a worker takes them", queueName)
				: null;
		Timer workDuration = latencyTimers
				? timer(WORK_DURATION, "Time workers take to process items of the work queue", queueName) : null;
		Counter stalled = Counter.builder(STALLED)
			.description("Items whose lease ran out before their holder was done, handed back to the shared queue "
					+ "by this instance; always 0 for a queue in memory")
			.tag(NAME_TAG, queueName)
			.register(this.registry);
		track(queueName, latencyTimers ? List.of(adds, retries, queueDuration, workDuration, stalled)
				: List.of(adds, retries, stalled));
		return new MicrometerWorkQueueMetrics(adds, retries, queueDuration, workDuration, stalled,
				levelWatch(queueName));
	}

	/**
	 * Registers the gauges of {@code queue} under {@code queueName}. The gauges sample
	 * the queue when read, a shared queue once for all of them, and reference it weakly.
	 * The time-based ones read zero unless the queue was built with
	 * {@link WorkQueues.Builder#metrics metrics}.
	 * @param queueName the queue's name, the value of the {@code name} tag
	 * @param queue the queue to sample
	 */
	public void bindGauges(String queueName, WorkQueue<?> queue) {
		Objects.requireNonNull(queueName, "queueName");
		Objects.requireNonNull(queue, "queue");
		// The gauges hold the reading strongly and it holds the queue weakly.
		QueueStatsReading<WorkQueueStats> reading = new QueueStatsReading<>(queue, Clock.system(), WorkQueue::stats,
				NOTHING);
		// client-go's depth: added and not yet handed out, so items added again while
		// processing count too (size() leaves them out until done).
		Gauge depth = Gauge.builder(DEPTH, reading, (r) -> r.readShared(WorkQueueStats::pending))
			.description("Items added to the work queue and not yet handed out to a worker")
			.tag(NAME_TAG, queueName)
			.strongReference(true)
			.register(this.registry);
		TimeGauge unfinishedWork = TimeGauge
			.builder(UNFINISHED_WORK, reading, TimeUnit.NANOSECONDS, (r) -> r.read(WorkQueueStats::unfinishedWorkNanos))
			.description("Time the items being processed have been in process, summed; "
					+ "a steady rise means stuck workers")
			.tag(NAME_TAG, queueName)
			.strongReference(true)
			.register(this.registry);
		TimeGauge longestRunningProcessor = TimeGauge
			.builder(LONGEST_RUNNING_PROCESSOR, reading, TimeUnit.NANOSECONDS,
					(r) -> r.read(WorkQueueStats::longestRunningProcessorNanos))
			.description("Time the item in process for the longest has been in process")
			.tag(NAME_TAG, queueName)
			.strongReference(true)
			.register(this.registry);
		Gauge delayedItems = Gauge.builder(DELAYED_ITEMS, reading, (r) -> r.readShared(WorkQueueStats::waiting))
			.description("Items waiting for their delay to pass before entering the work queue")
			.tag(NAME_TAG, queueName)
			.strongReference(true)
			.register(this.registry);
		track(queueName, List.of(depth, unfinishedWork, longestRunningProcessor, delayedItems));
		if (queue instanceof PriorityQueue<?> priorityQueue) {
			PriorityDepthGauges gauges = new PriorityDepthGauges(queueName, priorityQueue, this.registry,
					(gauge) -> track(queueName, List.of(gauge)));
			gauges.register();
			// A shared queue is a round trip away: read no more often than its gauges.
			levelWatch(queueName).attach(gauges, queue.capability(SharedWorkQueue.class).isPresent()
					? QueueStatsReading.SHARED_MAX_AGE_NANOS : LEVEL_SCAN_INTERVAL_NANOS);
		}
	}

	/**
	 * Removes from the registry every meter registered here for the queue named
	 * {@code queueName}. A no-op for a name without meters.
	 * @param queueName the queue's name
	 */
	public void remove(String queueName) {
		Objects.requireNonNull(queueName, "queueName");
		Set<Meter> meters;
		PriorityLevelWatch levelWatch;
		synchronized (this) {
			meters = this.metersByQueue.remove(queueName);
			levelWatch = this.levelWatches.remove(queueName);
		}
		if (levelWatch != null) {
			levelWatch.detach();
		}
		if (meters != null) {
			meters.forEach(this.registry::remove);
		}
	}

	private Timer timer(String name, String description, String queueName) {
		return Timer.builder(name)
			.description(description)
			.tag(NAME_TAG, queueName)
			.serviceLevelObjectives(DURATION_BUCKETS)
			.register(this.registry);
	}

	private synchronized PriorityLevelWatch levelWatch(String queueName) {
		return this.levelWatches.computeIfAbsent(queueName, (name) -> new PriorityLevelWatch(this.levelScanner));
	}

	/**
	 * Ends the thread that registers the gauges of new priority levels; the meters stay
	 * registered.
	 */
	@Override
	public void close() {
		this.levelScanner.close();
	}

	private synchronized void track(String queueName, List<Meter> meters) {
		this.metersByQueue.computeIfAbsent(queueName, (name) -> new LinkedHashSet<>()).addAll(meters);
	}

	@Override
	public String toString() {
		return "WorkQueueMeters[" + this.registry.getClass().getSimpleName() + "]";
	}

}
