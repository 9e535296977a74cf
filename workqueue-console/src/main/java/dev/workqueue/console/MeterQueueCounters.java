package dev.workqueue.console;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.BeanFactory;

/**
 * Counters from the queues' Micrometer meters, {@code workqueue.adds} and
 * {@code workqueue.retries}; a queue without meters (one the application built itself)
 * falls back to what {@link StatsQueueCounters} reads.
 */
final class MeterQueueCounters implements QueueCounters {

	private final MeterRegistry registry;

	private final QueueCounters fallback;

	MeterQueueCounters(MeterRegistry registry, QueueCounters fallback) {
		this.registry = registry;
		this.fallback = fallback;
	}

	/**
	 * Returns counters from the application's {@link MeterRegistry} if it has one.
	 * @param beanFactory where to look for it
	 * @param fallback the counters to use without one
	 * @return the counters
	 */
	static QueueCounters orElse(BeanFactory beanFactory, QueueCounters fallback) {
		MeterRegistry registry = beanFactory.getBeanProvider(MeterRegistry.class).getIfAvailable();
		return (registry != null) ? new MeterQueueCounters(registry, fallback) : fallback;
	}

	@Override
	public double adds(String name) {
		Counter counter = this.registry.find("workqueue.adds").tag("name", name).counter();
		return (counter != null) ? counter.count() : this.fallback.adds(name);
	}

	@Override
	public double retries(String name) {
		Counter counter = this.registry.find("workqueue.retries").tag("name", name).counter();
		return (counter != null) ? counter.count() : this.fallback.retries(name);
	}

}
