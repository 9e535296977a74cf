package dev.workqueue.spring.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;
import org.springframework.util.ReflectionUtils;

/**
 * {@link RuntimeHintsRegistrar} for what the starter uses reflectively at run time, for
 * AOT-processed applications and native images:
 * <ul>
 * <li>binding {@link WorkQueueProperties}, which {@link WorkQueueBeanRegistrar} does on
 * each start;</li>
 * <li>{@link WorkQueueFactory#create(QueueSettings)}, the factory method of the queue
 * beans, as the registrar registers those beans at run time (their destroy method,
 * {@code close}, is called on {@link AutoCloseable} without reflection);</li>
 * <li>the Lua scripts of the Redis backend and the helpers they include, read from the
 * class path.</li>
 * </ul>
 * The {@code @QueueWorker} methods need no entry here: the annotation is
 * {@link org.springframework.aot.hint.annotation.Reflective @Reflective}, so Spring
 * registers each one it finds on a bean.
 */
class WorkQueueRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		BindableRuntimeHintsRegistrar.forTypes(WorkQueueProperties.class).registerHints(hints, classLoader);
		hints.reflection()
			.registerMethod(ReflectionUtils.findMethod(WorkQueueFactory.class, "create", QueueSettings.class),
					ExecutableMode.INVOKE);
		// The scripts are in folders by layout, their helpers under includes/.
		hints.resources().registerPattern("dev/workqueue/redis/**/*.lua");
	}

}
