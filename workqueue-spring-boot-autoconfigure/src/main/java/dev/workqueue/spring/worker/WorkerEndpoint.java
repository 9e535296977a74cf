package dev.workqueue.spring.worker;

import java.lang.reflect.Method;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A {@link dev.workqueue.spring.QueueWorker @QueueWorker} method found on a bean, checked
 * and ready to be run by {@link WorkerContainerRegistry}.
 *
 * @param id the method, as {@code beanName#methodName}
 * @param bean the bean to call the method on: the bean as the container holds it, a proxy
 * if it is proxied
 * @param method the method to call on {@code bean}, made accessible; takes the item and,
 * on a priority queue, optionally an {@code int} priority, and returns {@code void} or
 * {@link dev.workqueue.spring.WorkResult}
 * @param queue the name of the queue to take items from
 * @param concurrency the number of threads asked for by the annotation, {@code null} to
 * use the queue's setting
 */
public record WorkerEndpoint(String id, Object bean, Method method, String queue, @Nullable Integer concurrency) {

	/**
	 * Creates an endpoint.
	 * @param id the method, as {@code beanName#methodName}
	 * @param bean the bean to call the method on
	 * @param method the method to call
	 * @param queue the name of the queue to take items from
	 * @param concurrency the number of threads, at least 1, or {@code null}
	 * @throws IllegalArgumentException if {@code method} does not take the item and maybe
	 * an {@code int}, or {@code concurrency} is less than 1
	 */
	public WorkerEndpoint {
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(bean, "bean");
		Objects.requireNonNull(method, "method");
		Objects.requireNonNull(queue, "queue");
		if (method.getParameterCount() != 1
				&& !(method.getParameterCount() == 2 && method.getParameterTypes()[1] == int.class)) {
			throw new IllegalArgumentException("method must take the item and maybe an int priority, was " + method);
		}
		if (concurrency != null && concurrency < 1) {
			throw new IllegalArgumentException("concurrency must be >= 1, was " + concurrency);
		}
	}

	/**
	 * Whether the method takes the priority the item was handed out with, as its second
	 * parameter.
	 * @return {@code true} if it takes two parameters
	 */
	public boolean takesPriority() {
		return this.method.getParameterCount() == 2;
	}

}
