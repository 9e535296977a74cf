package dev.workqueue.spring;

import java.util.Set;

import dev.workqueue.RateLimitingQueue;

/**
 * The work queues of the application context, by name: every {@link RateLimitingQueue}
 * bean, whether the starter built it from {@code workqueue.queues} or the application
 * defined it.
 * <p>
 * Handy where the queue's name is only known at run time; otherwise inject the queue
 * itself, {@code @Qualifier("orders") RateLimitingQueue<String> orders}. Implementations
 * are thread-safe.
 */
public interface WorkQueueRegistry {

	/**
	 * Returns the queue named {@code name}: the very bean of that name.
	 * @param <T> the item type the caller expects; not checked
	 * @param name the queue's name
	 * @return the queue
	 * @throws IllegalArgumentException if there is no queue of that name; the message
	 * lists the known names
	 */
	<T> RateLimitingQueue<T> get(String name);

	/**
	 * Returns the names of all the queues.
	 * @return the names, unmodifiable
	 */
	Set<String> names();

}
