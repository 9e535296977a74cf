package dev.workqueue.spring.metrics;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

import dev.workqueue.PriorityQueue;
import dev.workqueue.time.Clock;

/**
 * The {@code workqueue.depth.by.priority} gauges of one priority queue: its ready items
 * per priority, tagged {@code priority}, for at most {@link #MAX_PRIORITIES} priority
 * values; the ready items of any other priority are summed under
 * {@code priority="other"}.
 * <p>
 * The gauges of priority 0 (that of {@code add(item)}) and of {@code other} are
 * registered with the queue's other meters. The gauge of another priority is registered
 * as soon as that priority has ready items, as long as the queue has fewer than
 * {@link #MAX_PRIORITIES} of them, highest priority first: by {@link #trackReady()},
 * which a {@link PriorityLevelWatch} runs off the hot path after the queue's adds, and
 * also when a gauge of the queue is read (for levels that appear without an add here). A
 * gauge stays registered, reading 0 when its priority has no ready items. All the gauges
 * of a queue share one {@link QueueStatsReading} of its
 * {@link PriorityQueue#readyLevels()}. Thread-safe.
 */
final class PriorityDepthGauges {

	/** The most priority values a queue has gauges for, {@code other} not counted. */
	static final int MAX_PRIORITIES = 25;

	/** The {@code priority} tag of the items of the priorities without a gauge. */
	static final String OTHER = "other";

	static final String PRIORITY_TAG = "priority";

	private final String queueName;

	private final QueueStatsReading<List<PriorityQueue.Level>> reading;

	private final WeakReference<PriorityQueue<?>> queue;

	private final MeterRegistry registry;

	private final Consumer<Meter> registered;

	/** The priorities with a gauge; added to under this object's lock. */
	private final Set<Integer> tracked = ConcurrentHashMap.newKeySet();

	/**
	 * Creates the gauges of a queue; {@link #register()} registers the first ones.
	 * @param queueName the queue's name, the value of the {@code name} tag
	 * @param queue the queue
	 * @param registry where to register the gauges
	 * @param registered told of each gauge registered, so that it can be removed with the
	 * queue's other meters
	 */
	PriorityDepthGauges(String queueName, PriorityQueue<?> queue, MeterRegistry registry, Consumer<Meter> registered) {
		this.queueName = queueName;
		this.queue = new WeakReference<>(queue);
		this.reading = new QueueStatsReading<>(queue, Clock.system(), (read) -> ((PriorityQueue<?>) read).readyLevels(),
				List.of());
		this.registry = registry;
		this.registered = registered;
	}

	/** Registers the gauges of priority 0 and of {@code other}. */
	synchronized void register() {
		track(0);
		gauge(OTHER, (gauges) -> gauges.reading.readShared(this::other));
	}

	/**
	 * Reads the queue's ready levels and registers a gauge for each new priority, while
	 * there is room. Never called with the queue's lock held.
	 * @return {@code true} once no gauge will be added any more: every one is taken, or
	 * the queue is gone
	 */
	boolean trackReady() {
		PriorityQueue<?> queue = this.queue.get();
		if (queue == null) {
			return true;
		}
		if (this.tracked.size() < MAX_PRIORITIES) {
			trackNew(queue.readyLevels());
		}
		return this.tracked.size() >= MAX_PRIORITIES;
	}

	private double ready(int priority, List<PriorityQueue.Level> levels) {
		trackNew(levels);
		return levels.stream()
			.filter((level) -> level.priority() == priority)
			.mapToInt(PriorityQueue.Level::ready)
			.sum();
	}

	private double other(List<PriorityQueue.Level> levels) {
		trackNew(levels);
		return levels.stream()
			.filter((level) -> !this.tracked.contains(level.priority()))
			.mapToInt(PriorityQueue.Level::ready)
			.sum();
	}

	/** Gives each new priority of {@code levels} a gauge, while there is room. */
	private void trackNew(List<PriorityQueue.Level> levels) {
		if (this.tracked.size() >= MAX_PRIORITIES
				|| levels.stream().allMatch((level) -> this.tracked.contains(level.priority()))) {
			return;
		}
		synchronized (this) {
			for (PriorityQueue.Level level : levels) {
				if (this.tracked.size() < MAX_PRIORITIES && !this.tracked.contains(level.priority())) {
					track(level.priority());
				}
			}
		}
	}

	private void track(int priority) {
		this.tracked.add(priority);
		gauge(Integer.toString(priority), (gauges) -> gauges.reading.readShared((levels) -> ready(priority, levels)));
	}

	private void gauge(String priority, ToDoubleFunction<PriorityDepthGauges> value) {
		this.registered.accept(Gauge.builder(WorkQueueMeters.DEPTH_BY_PRIORITY, this, value)
			.description("Ready items of the priority queue by priority; at most " + MAX_PRIORITIES
					+ " priorities per queue, the others summed under priority \"other\"")
			.tag(WorkQueueMeters.NAME_TAG, this.queueName)
			.tag(PRIORITY_TAG, priority)
			.strongReference(true)
			.register(this.registry));
	}

}
