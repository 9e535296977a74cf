package dev.workqueue.spring.autoconfigure;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.spring.worker.WorkerSettings;

/**
 * The {@link QueueSettings} of every queue, resolved once from bound and checked
 * {@link WorkQueueProperties}: the one place where a queue takes each key it leaves out
 * from {@code workqueue.defaults} (its rate limiter as a whole). A queue without
 * properties, such as a queue bean of the application's own served by workers, takes the
 * defaults. Immutable; {@link WorkQueueBeanRegistrar} registers it as a bean.
 */
final class WorkQueueSettings {

	static final String BEAN_NAME = "dev.workqueue.spring.autoconfigure.workQueueSettings";

	/** The configured queues, in the order of the properties. */
	private final Map<String, QueueSettings> queues;

	/** The settings of a queue without properties, under an empty name. */
	private final QueueSettings defaults;

	private WorkQueueSettings(Map<String, QueueSettings> queues, QueueSettings defaults) {
		this.queues = queues;
		this.defaults = defaults;
	}

	/**
	 * Resolves the settings of every queue.
	 * @param properties the {@code workqueue.*} properties, valid
	 * @return the settings
	 */
	static WorkQueueSettings of(WorkQueueProperties properties) {
		WorkQueueProperties.Defaults defaults = properties.getDefaults();
		Map<String, QueueSettings> queues = new LinkedHashMap<>();
		properties.getQueues().forEach((name, queue) -> queues.put(name, resolve(name, queue, defaults)));
		return new WorkQueueSettings(queues, resolve("", new WorkQueueProperties.Queue(), defaults));
	}

	private static QueueSettings resolve(String name, WorkQueueProperties.Queue queue,
			WorkQueueProperties.Defaults defaults) {
		WorkQueueProperties.Priority priority = queue.getPriority();
		WorkQueueProperties.Priority defaultPriority = defaults.getPriority();
		return new QueueSettings(name, backend(or(queue.getBackend(), defaults.getBackend())),
				RateLimiterSettings.of(or(queue.getRateLimiter(), defaults.getRateLimiter())),
				new QueuePriority(Boolean.TRUE.equals(or(priority.getEnabled(), defaultPriority.getEnabled())),
						or(priority.getStarvationTimeout(), defaultPriority.getStarvationTimeout())),
				or(queue.getLatencyTimers(), defaults.isLatencyTimers()),
				new WorkerSettings(or(queue.getConcurrency(), defaults.getConcurrency()),
						or(queue.getMaxRetries(), defaults.getMaxRetries()),
						or(queue.getShutdownTimeout(), defaults.getShutdownTimeout()),
						or(queue.getPollTimeout(), defaults.getPollTimeout())),
				new GivenUpBound(or(queue.getGivenUp().getKeep(), defaults.getGivenUp().getKeep()),
						or(queue.getGivenUp().getRetention(), defaults.getGivenUp().getRetention())));
	}

	private static WorkQueueProperties.Backend backend(String value) {
		WorkQueueProperties.Backend backend = WorkQueueProperties.Backend.of(value);
		if (backend == null) {
			throw new IllegalArgumentException(
					"backend must be one of " + WorkQueuePropertiesValidator.BACKENDS + ", was '" + value + "'");
		}
		return backend;
	}

	private static <T extends @Nullable Object> T or(@Nullable T own, T fallback) {
		return (own != null) ? own : fallback;
	}

	/**
	 * Returns the settings of every configured queue, in the order of the properties.
	 * @return the settings
	 */
	Collection<QueueSettings> queues() {
		return this.queues.values();
	}

	/**
	 * Returns the settings of the queue named {@code name}: its own, or the defaults for
	 * a queue without properties.
	 * @param name the queue's name
	 * @return the settings
	 */
	QueueSettings get(String name) {
		QueueSettings queue = this.queues.get(name);
		return (queue != null) ? queue : this.defaults.named(name);
	}

}
