package dev.workqueue.spring.autoconfigure.endpoint;

import java.util.Optional;
import java.util.function.Function;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint;
import dev.workqueue.spring.autoconfigure.BeanFactoryWorkQueueRegistry;
import dev.workqueue.spring.worker.WorkerContainerRegistry;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@link WorkQueuesEndpoint workqueues} endpoint.
 * <p>
 * Active when the Actuator is on the class path, the work queues are configured and the
 * endpoint is enabled and exposed. The rate limiter of a queue is shown when the starter
 * built it.
 */
@AutoConfiguration(afterName = "dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration")
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(WorkQueueRegistry.class)
@ConditionalOnAvailableEndpoint(WorkQueuesEndpoint.class)
public final class WorkQueuesEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	WorkQueuesEndpoint workQueuesEndpoint(WorkQueueRegistry workQueueRegistry,
			ObjectProvider<WorkerContainerRegistry> workerContainerRegistry) {
		return new WorkQueuesEndpoint(workQueueRegistry, workerContainerRegistry.getIfAvailable(),
				rateLimiters(workQueueRegistry));
	}

	private static Function<String, Optional<RateLimiter<?>>> rateLimiters(WorkQueueRegistry workQueueRegistry) {
		if (workQueueRegistry instanceof BeanFactoryWorkQueueRegistry starter) {
			return starter::rateLimiter;
		}
		return (name) -> Optional.empty();
	}

}
