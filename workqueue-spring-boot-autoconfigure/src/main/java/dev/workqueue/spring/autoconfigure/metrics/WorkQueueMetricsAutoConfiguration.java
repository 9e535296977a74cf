package dev.workqueue.spring.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.spring.autoconfigure.WorkQueueMetricsFactory;
import dev.workqueue.spring.metrics.WorkQueueMeters;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of work queue metrics: every queue the starter builds records into
 * Micrometer meters named as Kubernetes client-go's workqueue metrics (without the two
 * latency timers where its {@code latency-timers} property is {@code false}), and every
 * queue bean gets the gauges.
 * <p>
 * Active when Micrometer is on the class path and a {@link MeterRegistry} bean exists.
 * The queues get their hooks from the {@link WorkQueueMetricsFactory} before any
 * {@link WorkQueueCustomizer} runs, so that a user's customizer may still replace the
 * metrics hook.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "workqueue.enabled", matchIfMissing = true)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class WorkQueueMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	WorkQueueMeters workQueueMeters(MeterRegistry meterRegistry) {
		return new WorkQueueMeters(meterRegistry);
	}

	@Bean
	WorkQueueMetricsFactory workQueueMetricsFactory(WorkQueueMeters workQueueMeters) {
		return new WorkQueueMetricsFactory() {

			@Override
			public WorkQueueMetrics metrics(String queueName) {
				return workQueueMeters.metrics(queueName);
			}

			@Override
			public WorkQueueMetrics metrics(String queueName, boolean latencyTimers) {
				return workQueueMeters.metrics(queueName, latencyTimers);
			}

		};
	}

	@Bean
	static WorkQueueMetersBeanPostProcessor workQueueMetersBeanPostProcessor(
			ObjectProvider<WorkQueueMeters> workQueueMeters) {
		return new WorkQueueMetersBeanPostProcessor(workQueueMeters);
	}

}
