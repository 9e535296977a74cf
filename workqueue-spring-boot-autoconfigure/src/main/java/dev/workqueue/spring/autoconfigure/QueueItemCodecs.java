package dev.workqueue.spring.autoconfigure;

import java.util.Optional;

import org.springframework.beans.factory.BeanFactory;

import dev.workqueue.ItemCodec;

/**
 * Finds the {@link ItemCodec} of a queue: the bean named {@code <queue>ItemCodec}. A
 * queue whose items are kept outside this JVM takes {@link ItemCodec#strings()} without
 * one; every backend takes its codec from here, so that one bean serves a queue on any of
 * them.
 */
final class QueueItemCodecs {

	private QueueItemCodecs() {
	}

	/**
	 * Returns the codec of the queue named {@code queueName}, for a backend that stores
	 * items as text.
	 * @param beanFactory where to look for the codec bean
	 * @param queueName the queue's name
	 * @return the codec bean, else {@link ItemCodec#strings()}
	 */
	@SuppressWarnings("unchecked")
	static ItemCodec<Object> of(BeanFactory beanFactory, String queueName) {
		return find(beanFactory, queueName).orElse((ItemCodec<Object>) (ItemCodec<?>) ItemCodec.strings());
	}

	/**
	 * Returns the codec bean of the queue named {@code queueName}, if there is one: what
	 * a memory queue shows its items with and reads an operator's text with.
	 * @param beanFactory where to look for the codec bean
	 * @param queueName the queue's name
	 * @return the codec bean, or empty
	 */
	@SuppressWarnings("unchecked")
	static Optional<ItemCodec<Object>> find(BeanFactory beanFactory, String queueName) {
		String beanName = queueName + "ItemCodec";
		if (beanFactory.containsBean(beanName)) {
			return Optional.of(beanFactory.getBean(beanName, ItemCodec.class));
		}
		return Optional.empty();
	}

}
