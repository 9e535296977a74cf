package dev.workqueue.spring.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * {@link Conditional @Conditional} that matches when a {@code workqueue.queues} entry has
 * the given backend: what each backend's configuration in
 * {@link QueueBackendConfigurations} is conditional on, beside its classes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnQueueBackendCondition.class)
@interface ConditionalOnQueueBackend {

	/**
	 * The backend a queue must have.
	 * @return the backend
	 */
	WorkQueueProperties.Backend value();

}
