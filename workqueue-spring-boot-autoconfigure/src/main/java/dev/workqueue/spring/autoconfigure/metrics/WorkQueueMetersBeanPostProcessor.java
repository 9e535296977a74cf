package dev.workqueue.spring.autoconfigure.metrics;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;

import dev.workqueue.WorkQueue;
import dev.workqueue.spring.metrics.WorkQueueMeters;

/**
 * Binds the gauges of every {@link WorkQueue} bean, tagged with its bean name, as soon as
 * the bean is initialized, and removes all the meters of that name when the bean is
 * destroyed. The starter names each queue bean after its queue; a queue bean the user
 * defines gets its gauges too (its counters and timers only if it was built with
 * {@link WorkQueueMeters#metrics(String)}).
 * <p>
 * {@link WorkQueueMeters} is looked up on first use, not when this post-processor is
 * created, so that the meter registry is created as an ordinary bean, configured by every
 * other post-processor.
 */
final class WorkQueueMetersBeanPostProcessor implements DestructionAwareBeanPostProcessor {

	private final ObjectProvider<WorkQueueMeters> meters;

	WorkQueueMetersBeanPostProcessor(ObjectProvider<WorkQueueMeters> meters) {
		this.meters = meters;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof WorkQueue<?> queue) {
			this.meters.getObject().bindGauges(beanName, queue);
		}
		return bean;
	}

	@Override
	public boolean requiresDestruction(Object bean) {
		return bean instanceof WorkQueue;
	}

	@Override
	public void postProcessBeforeDestruction(Object bean, String beanName) {
		if (bean instanceof WorkQueue) {
			this.meters.getObject().remove(beanName);
		}
	}

}
