package dev.workqueue.spring.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.BindMethod;
import org.springframework.core.env.Environment;
import org.springframework.core.log.LogMessage;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;

/**
 * Binds and validates the {@code workqueue.*} properties, registers the result as the
 * {@link WorkQueueProperties} bean and its resolved {@link WorkQueueSettings} as a bean,
 * and registers one {@link RateLimitingQueue} bean definition per
 * {@code workqueue.queues} entry, named after it, unless a bean of that name is already
 * defined: the application's bean wins.
 * <p>
 * Runs once every configuration class has been parsed, so that the application's own
 * definitions are known, and before any singleton is created, so that invalid properties
 * fail the start-up first. A definition's type is the raw {@code RateLimitingQueue}, or
 * the raw {@link PriorityQueue} for a queue with {@code priority.enabled}, with an
 * unresolved item type, so that the bean can be injected as
 * {@code RateLimitingQueue<String>} (or {@code PriorityQueue<String>}) or any other item
 * type. The queue is built by {@link WorkQueueFactory#create(QueueSettings)}, which is
 * given the queue's settings, and closed when the context closes, after the workers have
 * stopped; a queue of a backend bean ({@link QueueBackend#beanName}) is created after
 * that bean and closed before it.
 * <p>
 * <b>Spring AOT.</b> The definitions registered here are left out of the code AOT
 * generates ({@link BeanRegistrationAotProcessor#IGNORE_REGISTRATION_ATTRIBUTE}): this
 * post-processor runs again when the AOT-processed application starts, binds and checks
 * the properties of that start, and registers them anew. The queues themselves are fixed
 * at build time, as every bean is under AOT: a queue added to the properties later needs
 * a new build.
 */
final class WorkQueueBeanRegistrar implements BeanDefinitionRegistryPostProcessor {

	/** The name Boot would give the bean of {@code @EnableConfigurationProperties}. */
	static final String PROPERTIES_BEAN_NAME = "workqueue-" + WorkQueueProperties.class.getName();

	private static final Log logger = LogFactory.getLog(WorkQueueBeanRegistrar.class);

	private final Environment environment;

	WorkQueueBeanRegistrar(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
		WorkQueueProperties properties = WorkQueuePropertiesValidator.bind(this.environment);
		WorkQueueSettings settings = WorkQueueSettings.of(properties);
		registry.registerBeanDefinition(PROPERTIES_BEAN_NAME, propertiesDefinition(properties));
		registry.registerBeanDefinition(WorkQueueSettings.BEAN_NAME, settingsDefinition(settings));
		for (QueueSettings queue : settings.queues()) {
			String name = queue.name();
			if (registry.containsBeanDefinition(name) || registry.isAlias(name)) {
				checkCanBeAQueue(registry, name);
				logger.debug(LogMessage.format("Using the application's bean '%s' as work queue '%s'", name, name));
				continue;
			}
			RootBeanDefinition definition = queueDefinition(queue);
			// The backend's definition exists when its classes are present: create the
			// queue after the backend (and what the backend waits for), close it before
			// the backend, and the backend before the connection it uses.
			String backend = QueueBackend.beanName(queue.backend());
			if (registry.containsBeanDefinition(backend)) {
				definition.setDependsOn(backend);
			}
			registry.registerBeanDefinition(name, definition);
		}
	}

	/**
	 * Refuses an application's bean of a queue's name whose class cannot be a queue: it
	 * would stand for the queue, which then would not exist. A type not known yet, or an
	 * interface or {@code Object} (which a queue may implement), passes.
	 */
	private static void checkCanBeAQueue(BeanDefinitionRegistry registry, String name) {
		if (!(registry instanceof ConfigurableListableBeanFactory beanFactory)) {
			return;
		}
		Class<?> type = beanFactory.getType(name, false);
		if (type != null && !type.isInterface() && type != Object.class
				&& !RateLimitingQueue.class.isAssignableFrom(type)) {
			throw new IllegalStateException("workqueue.queues." + name + " configures a queue named '" + name
					+ "', but the application has a bean '" + name + "' of type " + type.getName()
					+ ", which is not a RateLimitingQueue (an application's bean of a queue's name stands for the"
					+ " queue): rename the queue or the bean");
		}
	}

	/**
	 * The properties bean: the very object bound and checked above, so the tree is bound
	 * once. The attribute tells Boot's binding post-processor that the object is bound
	 * already (as it marks the constructor-bound beans it registers itself).
	 */
	private static RootBeanDefinition propertiesDefinition(WorkQueueProperties properties) {
		RootBeanDefinition definition = new RootBeanDefinition(WorkQueueProperties.class, () -> properties);
		definition.setAttribute(BindMethod.class.getName(), BindMethod.VALUE_OBJECT);
		definition.setAttribute(BeanRegistrationAotProcessor.IGNORE_REGISTRATION_ATTRIBUTE, true);
		return definition;
	}

	/** The settings bean, resolved from the properties above, once. */
	private static RootBeanDefinition settingsDefinition(WorkQueueSettings settings) {
		RootBeanDefinition definition = new RootBeanDefinition(WorkQueueSettings.class, () -> settings);
		definition.setAttribute(BeanRegistrationAotProcessor.IGNORE_REGISTRATION_ATTRIBUTE, true);
		return definition;
	}

	private static RootBeanDefinition queueDefinition(QueueSettings queue) {
		RootBeanDefinition definition = new RootBeanDefinition();
		definition.setTargetType(queue.priority().enabled() ? PriorityQueue.class : RateLimitingQueue.class);
		definition.setFactoryBeanName(WorkQueueFactory.BEAN_NAME);
		definition.setFactoryMethodName("create");
		definition.getConstructorArgumentValues().addIndexedArgumentValue(0, queue);
		definition.setDestroyMethodName("close");
		definition.setAttribute(BeanRegistrationAotProcessor.IGNORE_REGISTRATION_ATTRIBUTE, true);
		return definition;
	}

}
