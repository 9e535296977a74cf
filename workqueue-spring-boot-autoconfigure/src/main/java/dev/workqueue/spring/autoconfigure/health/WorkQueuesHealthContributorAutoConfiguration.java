package dev.workqueue.spring.autoconfigure.health;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.actuate.health.WorkQueuesHealthIndicator;
import dev.workqueue.spring.worker.WorkerContainerRegistry;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@code workqueues} health contributor.
 * <p>
 * Active when Spring Boot's health support is on the class path, the work queues are
 * configured and {@code management.health.workqueues.enabled} is not {@code false}.
 */
@AutoConfiguration(afterName = "dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration",
		beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(WorkQueueRegistry.class)
@ConditionalOnEnabledHealthIndicator("workqueues")
public final class WorkQueuesHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "workqueuesHealthIndicator")
	WorkQueuesHealthIndicator workqueuesHealthIndicator(WorkQueueRegistry workQueueRegistry,
			ObjectProvider<WorkerContainerRegistry> workerContainerRegistry,
			ConfigurableApplicationContext applicationContext) {
		// A context that is closing stops its containers and queues on purpose.
		return new WorkQueuesHealthIndicator(workQueueRegistry, workerContainerRegistry.getIfAvailable(),
				applicationContext::isClosed);
	}

}
