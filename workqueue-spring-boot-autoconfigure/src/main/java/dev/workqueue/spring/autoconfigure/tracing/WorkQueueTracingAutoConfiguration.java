package dev.workqueue.spring.autoconfigure.tracing;

import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.spring.PostgresWorkQueueCustomizer;
import dev.workqueue.spring.RedisWorkQueueCustomizer;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.spring.observation.PropagatorTraceContextSource;
import dev.workqueue.spring.observation.QueueCommandObservationPredicate;
import dev.workqueue.spring.observation.WorkItemTracingObservationHandler;

/**
 * Carries trace context from the adds of an item to its worker, when the application has
 * Micrometer Tracing ({@link Tracer} and {@link Propagator} beans, as Spring Boot makes
 * them for Brave or OpenTelemetry): every queue the starter builds stores the context of
 * the span current at each add ({@link PropagatorTraceContextSource}, set first by a
 * customizer of each backend, so that an application's customizer may replace it), and
 * the {@code workqueue.process} span of the item becomes that span's child, linked to the
 * later adds ({@link WorkItemTracingObservationHandler}). Off with
 * {@code workqueue.observation.propagation=false}.
 * <p>
 * With workqueue-redis and Lettuce's observation (Boot's default with Spring Data Redis),
 * it also keeps the redis backend's own commands out of the traces
 * ({@link QueueCommandObservationPredicate}), whatever the propagation setting.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
		"org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration",
		"org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration" },
		beforeName = "dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration")
@ConditionalOnClass(name = { "io.micrometer.tracing.Tracer", "io.micrometer.observation.ObservationRegistry" })
@ConditionalOnBooleanProperty(name = "workqueue.enabled", matchIfMissing = true)
public final class WorkQueueTracingAutoConfiguration {

	/** The order of the work item handler: before Micrometer Tracing's own (1000 on). */
	static final int HANDLER_ORDER = 900;

	/**
	 * The trace context carried by every queue, and the process span made from it.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean({ Tracer.class, Propagator.class })
	@ConditionalOnBooleanProperty(name = "workqueue.observation.propagation", matchIfMissing = true)
	static class PropagationConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "workQueueTraceContextSource")
		PropagatorTraceContextSource workQueueTraceContextSource(Tracer tracer, Propagator propagator) {
			return new PropagatorTraceContextSource(tracer, propagator);
		}

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		WorkQueueCustomizer workQueueTraceContextCustomizer(TraceContextSource workQueueTraceContextSource) {
			return (name, builder) -> builder.traceContextSource(workQueueTraceContextSource);
		}

		@Bean
		@Order(HANDLER_ORDER)
		@ConditionalOnBooleanProperty(name = "workqueue.observation.enabled", matchIfMissing = true)
		WorkItemTracingObservationHandler workItemTracingObservationHandler(Tracer tracer, Propagator propagator) {
			return new WorkItemTracingObservationHandler(tracer, propagator);
		}

	}

	/**
	 * The redis backend's share: its queues carry the context too.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "dev.workqueue.redis.RedisWorkQueues")
	@ConditionalOnBean({ Tracer.class, Propagator.class })
	@ConditionalOnBooleanProperty(name = "workqueue.observation.propagation", matchIfMissing = true)
	static class RedisPropagationConfiguration {

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		RedisWorkQueueCustomizer redisWorkQueueTraceContextCustomizer(TraceContextSource workQueueTraceContextSource) {
			return (name, builder) -> builder.traceContextSource(workQueueTraceContextSource);
		}

	}

	/**
	 * The postgres backend's share: its queues carry the context too, in the item's row.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "dev.workqueue.postgres.PostgresWorkQueues")
	@ConditionalOnBean({ Tracer.class, Propagator.class })
	@ConditionalOnBooleanProperty(name = "workqueue.observation.propagation", matchIfMissing = true)
	static class PostgresPropagationConfiguration {

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		PostgresWorkQueueCustomizer postgresWorkQueueTraceContextCustomizer(
				TraceContextSource workQueueTraceContextSource) {
			return (name, builder) -> builder.traceContextSource(workQueueTraceContextSource);
		}

	}

	/**
	 * No traces of the redis backend's own work.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(
			name = { "dev.workqueue.redis.RedisWorkQueues", "io.lettuce.core.tracing.LettuceObservationContext" })
	static class RedisCommandsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		QueueCommandObservationPredicate workQueueCommandObservationPredicate() {
			return new QueueCommandObservationPredicate();
		}

	}

}
