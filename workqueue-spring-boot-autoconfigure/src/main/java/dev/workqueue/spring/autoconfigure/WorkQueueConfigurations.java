package dev.workqueue.spring.autoconfigure;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import dev.workqueue.spring.WorkQueueOperations;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.observation.MicrometerWorkObservations;
import dev.workqueue.spring.observation.WorkItemObservationConvention;
import dev.workqueue.spring.worker.ItemLogging;
import dev.workqueue.spring.worker.QueueWorkerAnnotationBeanPostProcessor;
import dev.workqueue.spring.worker.WorkObservations;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.time.Clock;

/**
 * The configurations imported by {@link WorkQueueAutoConfiguration}, in this order:
 * queues first, then the workers that consume them. The backends' configurations, which
 * the queues are built on, are {@link QueueBackendConfigurations}.
 */
final class WorkQueueConfigurations {

	private WorkQueueConfigurations() {
	}

	/**
	 * The queue beans, their factory and the registry.
	 */
	@Configuration(proxyBeanMethods = false)
	static class QueueConfiguration {

		@Bean
		static WorkQueueBeanRegistrar workQueueBeanRegistrar(Environment environment) {
			return new WorkQueueBeanRegistrar(environment);
		}

		@Bean(WorkQueueFactory.BEAN_NAME)
		WorkQueueFactory workQueueFactory(BeanFactory beanFactory) {
			return new WorkQueueFactory(beanFactory);
		}

		@Bean
		@ConditionalOnMissingBean(WorkQueueRegistry.class)
		BeanFactoryWorkQueueRegistry workQueueRegistry(ListableBeanFactory beanFactory) {
			return new BeanFactoryWorkQueueRegistry(beanFactory);
		}

	}

	/**
	 * The worker threads of {@code @QueueWorker} methods, and the operations on them.
	 */
	@Configuration(proxyBeanMethods = false)
	static class WorkerConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static QueueWorkerAnnotationBeanPostProcessor queueWorkerAnnotationBeanPostProcessor() {
			return new QueueWorkerAnnotationBeanPostProcessor();
		}

		@Bean
		@ConditionalOnMissingBean
		WorkerContainerRegistry workerContainerRegistry(QueueWorkerAnnotationBeanPostProcessor endpoints,
				WorkQueueRegistry workQueueRegistry, WorkQueueSettings workQueueSettings,
				WorkQueueFactory workQueueFactory, WorkQueueProperties properties, ObjectProvider<Clock> clock,
				ApplicationEventPublisher publisher, Environment environment,
				ObjectProvider<WorkObservations> observations) {
			WorkerContainerRegistry registry = new WorkerContainerRegistry(endpoints, workQueueRegistry,
					(name) -> workQueueSettings.get(name).workers(), workQueueFactory::failureTracking,
					clock.getIfAvailable(Clock::system), publisher, Threading.VIRTUAL.isActive(environment));
			registry.setKeepAlive(properties.getWorkers().isKeepAlive());
			registry.setItemLogging(ItemLogging.of(properties.isLogItems()));
			observations.ifAvailable(registry::setObservations);
			return registry;
		}

		@Bean
		@ConditionalOnMissingBean
		WorkQueueOperations workQueueOperations(WorkQueueRegistry workQueueRegistry,
				WorkerContainerRegistry workerContainerRegistry) {
			return new WorkQueueOperations(workQueueRegistry, workerContainerRegistry);
		}

	}

	/**
	 * A Micrometer Observation per worker invocation, when Micrometer's observation API
	 * is on the class path, an {@code ObservationRegistry} bean exists, and
	 * {@code workqueue.observation.enabled} is not {@code false}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
	@ConditionalOnBooleanProperty(name = "workqueue.observation.enabled", matchIfMissing = true)
	static class ObservationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		WorkObservations workQueueObservations(ObjectProvider<ObservationRegistry> registry,
				ObjectProvider<WorkItemObservationConvention> convention) {
			ObservationRegistry observationRegistry = registry.getIfUnique();
			return (observationRegistry != null)
					? new MicrometerWorkObservations(observationRegistry, convention.getIfUnique())
					: WorkObservations.NONE;
		}

	}

}
