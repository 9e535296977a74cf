package dev.workqueue.spring.autoconfigure;

import org.springframework.beans.factory.BeanFactory;

import dev.workqueue.ItemCodec;

/**
 * Finds the {@link ItemCodec} of a queue whose items are kept outside this JVM: the bean
 * named {@code <queue>ItemCodec}, else {@link ItemCodec#strings()}. Every backend that
 * stores items as text takes its codec from here, so that one bean serves a queue on any
 * of them.
 */
final class QueueItemCodecs {

	private QueueItemCodecs() {
	}

	/**
	 * Returns the codec of the queue named {@code queueName}.
	 * @param beanFactory where to look for the codec bean
	 * @param queueName the queue's name
	 * @return the codec
	 */
	@SuppressWarnings("unchecked")
	static ItemCodec<Object> of(BeanFactory beanFactory, String queueName) {
		String beanName = queueName + "ItemCodec";
		if (beanFactory.containsBean(beanName)) {
			return beanFactory.getBean(beanName, ItemCodec.class);
		}
		return (ItemCodec<Object>) (ItemCodec<?>) ItemCodec.strings();
	}

}
