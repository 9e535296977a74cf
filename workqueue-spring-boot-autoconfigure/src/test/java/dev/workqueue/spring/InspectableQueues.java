package dev.workqueue.spring;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.inspect.QueueInspector;

/**
 * Queues that have a {@link QueueInspector} for tests, before core's queues have theirs:
 * a real queue behind a proxy that is also the inspector, as a queue of core is found
 * with {@code capability(QueueInspector.class)}.
 */
public final class InspectableQueues {

	private InspectableQueues() {
	}

	/**
	 * Returns {@code real} behind a proxy whose inspector is {@code inspector}: the
	 * inspector's methods go to it, every other call to {@code real}, and a capability
	 * other than the inspector is {@code real}'s.
	 * @param real the queue
	 * @param inspector its inspector
	 * @return the proxy
	 */
	@SuppressWarnings("unchecked")
	public static RateLimitingQueue<Object> of(RateLimitingQueue<Object> real, QueueInspector inspector) {
		return (RateLimitingQueue<Object>) Proxy.newProxyInstance(InspectableQueues.class.getClassLoader(),
				new Class<?>[] { RateLimitingQueue.class, QueueInspector.class }, (proxy, method, args) -> {
					if (method.getDeclaringClass() == QueueInspector.class) {
						return invoke(method, inspector, args);
					}
					if (method.getName().equals("capability")) {
						Class<?> type = (Class<?>) args[0];
						return type.isInstance(proxy) ? Optional.of(proxy) : real.capability(type);
					}
					return invoke(method, real, args);
				});
	}

	private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
