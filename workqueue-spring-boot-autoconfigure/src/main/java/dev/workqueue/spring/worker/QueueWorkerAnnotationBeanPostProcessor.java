package dev.workqueue.spring.worker;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkResult;

/**
 * Finds the {@link QueueWorker @QueueWorker} methods of every bean, checks them and turns
 * them into {@link WorkerEndpoint}s for {@link WorkerContainerRegistry} to run.
 * <p>
 * Runs after every other post-processor ({@link Ordered#LOWEST_PRECEDENCE}), so that it
 * sees the bean as the container will hold it: when the bean is proxied, the endpoint
 * calls the method through the proxy and the advice applies. A method is rejected with an
 * {@link InvalidQueueWorkerException}, failing the bean's creation and so the
 * application's start-up, when it does not take the item (and, on a
 * {@link PriorityQueue}, maybe an {@code int} priority as second parameter), returns
 * something other than {@code void} or {@link WorkResult}, cannot be called through the
 * proxy, names a queue for which there is no {@link RateLimitingQueue} singleton bean, or
 * asks for a {@code concurrency} that does not resolve to an integer of at least 1.
 * Worker methods must be on singleton beans.
 * <p>
 * Thread-safe: endpoints found before {@link #onEndpoint} is called are kept and handed
 * over then; later ones (lazy beans) are handed over as they are found. {@code lock}
 * guards {@code pending} and {@code listener}; the listener is called without it.
 */
public final class QueueWorkerAnnotationBeanPostProcessor
		implements BeanPostProcessor, BeanFactoryAware, EmbeddedValueResolverAware, Ordered {

	private final Set<Class<?>> classesWithoutWorkers = ConcurrentHashMap.newKeySet();

	private final Object lock = new Object();

	private final List<WorkerEndpoint> pending = new ArrayList<>();

	private @Nullable Consumer<WorkerEndpoint> listener;

	private @Nullable ListableBeanFactory beanFactory;

	private @Nullable StringValueResolver valueResolver;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		Assert.isInstanceOf(ListableBeanFactory.class, beanFactory);
		this.beanFactory = (ListableBeanFactory) beanFactory;
	}

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.valueResolver = resolver;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AopInfrastructureBean) {
			return bean;
		}
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.classesWithoutWorkers.contains(targetClass)
				|| !AnnotationUtils.isCandidateClass(targetClass, QueueWorker.class)) {
			return bean;
		}
		Map<Method, QueueWorker> workers = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<QueueWorker>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, QueueWorker.class));
		if (workers.isEmpty()) {
			this.classesWithoutWorkers.add(targetClass);
			return bean;
		}
		workers.forEach((method, annotation) -> register(endpoint(bean, beanName, method, annotation)));
		return bean;
	}

	/**
	 * Hands every endpoint found so far to {@code listener}, and every later one as it is
	 * found. Called once, by {@link WorkerContainerRegistry#start()}.
	 * @param listener receives the endpoints
	 */
	void onEndpoint(Consumer<WorkerEndpoint> listener) {
		List<WorkerEndpoint> found;
		synchronized (this.lock) {
			Assert.state(this.listener == null, "An endpoint listener is already set");
			this.listener = listener;
			found = List.copyOf(this.pending);
			this.pending.clear();
		}
		found.forEach(listener);
	}

	private void register(WorkerEndpoint endpoint) {
		Consumer<WorkerEndpoint> current;
		synchronized (this.lock) {
			current = this.listener;
			if (current == null) {
				this.pending.add(endpoint);
				return;
			}
		}
		current.accept(endpoint);
	}

	private WorkerEndpoint endpoint(Object bean, String beanName, Method method, QueueWorker annotation) {
		String worker = describe(method);
		ListableBeanFactory beanFactory = this.beanFactory;
		Assert.state(beanFactory != null, "No BeanFactory set");
		if (beanFactory.containsBean(beanName) && !beanFactory.isSingleton(beanName)) {
			throw new InvalidQueueWorkerException(worker,
					"is on bean '" + beanName + "', which is not a singleton; worker beans must be singletons");
		}
		checkParameters(worker, method);
		Class<?> returnType = method.getReturnType();
		if (returnType != void.class && !WorkResult.class.isAssignableFrom(returnType)) {
			throw new InvalidQueueWorkerException(worker,
					"must return void or WorkResult, but returns " + returnType.getName());
		}
		String queue = annotation.queue();
		List<String> knownQueues = Arrays
			.asList(beanFactory.getBeanNamesForType(RateLimitingQueue.class, false, false));
		if (!knownQueues.contains(queue)) {
			throw new InvalidQueueWorkerException(worker,
					"names queue '" + queue + "', which does not exist; known queues: "
							+ knownQueues.stream().sorted().toList() + " (configure it under workqueue.queues." + queue
							+ " or define a RateLimitingQueue bean named '" + queue + "')");
		}
		if (method.getParameterCount() == 2 && !isPriorityQueue(beanFactory, queue)) {
			throw new InvalidQueueWorkerException(worker,
					"takes the priority as its second parameter, but queue '" + queue
							+ "' is not a priority queue (set workqueue.queues." + queue
							+ ".priority.enabled=true, or take the item only)");
		}
		Method invocable;
		try {
			invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		}
		catch (IllegalStateException ex) {
			throw new InvalidQueueWorkerException(worker,
					"cannot be called on bean '" + beanName + "': " + ex.getMessage());
		}
		ReflectionUtils.makeAccessible(invocable);
		return new WorkerEndpoint(beanName + "#" + method.getName(), bean, invocable, queue,
				concurrency(worker, annotation.concurrency()));
	}

	/**
	 * Whether the queue bean is a priority queue: its type, or, when a bean not made yet
	 * is declared as a plain {@link RateLimitingQueue} (a user's priority queue may be),
	 * the bean itself, made now.
	 */
	private static boolean isPriorityQueue(ListableBeanFactory beanFactory, String queue) {
		return beanFactory.isTypeMatch(queue, PriorityQueue.class)
				|| beanFactory.getBean(queue, RateLimitingQueue.class) instanceof PriorityQueue;
	}

	private static void checkParameters(String worker, Method method) {
		int count = method.getParameterCount();
		if (count < 1 || count > 2) {
			throw new InvalidQueueWorkerException(worker,
					"must take the item, and on a priority queue maybe an int priority, but takes " + count
							+ " parameters");
		}
		if (count == 2 && method.getParameterTypes()[1] != int.class) {
			throw new InvalidQueueWorkerException(worker,
					"must take an int priority as its second parameter, but takes "
							+ method.getParameterTypes()[1].getName());
		}
	}

	private @Nullable Integer concurrency(String worker, String expression) {
		String resolved;
		try {
			resolved = (this.valueResolver != null) ? this.valueResolver.resolveStringValue(expression) : expression;
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidQueueWorkerException(worker,
					"has concurrency '" + expression + "', which cannot be resolved: " + ex.getMessage());
		}
		if (!StringUtils.hasText(resolved)) {
			return null;
		}
		Integer concurrency = parseInteger(resolved);
		if (concurrency == null || concurrency < 1 || concurrency > WorkerSettings.MAX_CONCURRENCY) {
			throw new InvalidQueueWorkerException(worker,
					"has concurrency '" + expression + "', which must resolve to an integer from 1 to "
							+ WorkerSettings.MAX_CONCURRENCY + ", was '" + resolved + "'");
		}
		return concurrency;
	}

	private static @Nullable Integer parseInteger(String value) {
		try {
			return Integer.valueOf(value.trim());
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static String describe(Method method) {
		return method.getDeclaringClass().getName() + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes())
					.map(Class::getSimpleName)
					.collect(Collectors.joining(", ", "(", ")"));
	}

}
