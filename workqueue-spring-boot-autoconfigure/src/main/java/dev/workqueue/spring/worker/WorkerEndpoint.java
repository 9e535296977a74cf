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
 * @param method the method to call on {@code bean}, made accessible; takes one parameter
 * and returns {@code void} or {@link dev.workqueue.spring.WorkResult}
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
	 * @throws IllegalArgumentException if {@code method} does not take exactly one
	 * parameter or {@code concurrency} is less than 1
	 */
	public WorkerEndpoint {
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(bean, "bean");
		Objects.requireNonNull(method, "method");
		Objects.requireNonNull(queue, "queue");
		if (method.getParameterCount() != 1) {
			throw new IllegalArgumentException("method must take exactly one parameter, was " + method);
		}
		if (concurrency != null && concurrency < 1) {
			throw new IllegalArgumentException("concurrency must be >= 1, was " + concurrency);
		}
	}

}
