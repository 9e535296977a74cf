package dev.workqueue.spring.autoconfigure;

import io.lettuce.core.RedisClient;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.workqueue.redis.RedisWorkQueues;
import dev.workqueue.spring.RedisWorkQueueCustomizer;
import dev.workqueue.spring.WorkQueueCustomizer;
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
 * queues first, then the workers that consume them. A backend with a configuration of its
 * own file is imported beside the redis one.
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
		WorkQueueFactory workQueueFactory(ObjectProvider<Clock> clock, ObjectProvider<WorkQueueMetricsFactory> metrics,
				ObjectProvider<WorkQueueCustomizer> customizers, BeanFactory beanFactory) {
			return new WorkQueueFactory(new MemoryBackend(clock.getIfAvailable(Clock::system), metrics, customizers),
					beanFactory);
		}

		@Bean
		@ConditionalOnMissingBean(WorkQueueRegistry.class)
		BeanFactoryWorkQueueRegistry workQueueRegistry(ListableBeanFactory beanFactory) {
			return new BeanFactoryWorkQueueRegistry(beanFactory);
		}

	}

	/**
	 * The redis backend, when workqueue-redis, Lettuce and Spring Boot's Redis support
	 * are on the class path; used only by queues whose {@code backend} is {@code redis}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisWorkQueues.class, RedisClient.class, LettuceConnectionFactory.class,
			DataRedisConnectionDetails.class })
	static class RedisBackendConfiguration {

		@Bean(WorkQueueBeanRegistrar.REDIS_BACKEND_BEAN_NAME)
		RedisBackend workQueueRedisBackend(WorkQueueProperties properties, ConfigurableListableBeanFactory beanFactory,
				ObjectProvider<WorkQueueMetricsFactory> metrics, ObjectProvider<RedisWorkQueueCustomizer> customizers) {
			return new RedisBackend(WorkQueueBeanRegistrar.REDIS_BACKEND_BEAN_NAME, properties.getRedis(), beanFactory,
					metrics, customizers);
		}

	}

	/**
	 * The worker threads of {@code @QueueWorker} methods.
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
