package dev.workqueue.spring.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;
import org.springframework.util.ReflectionUtils;

/**
 * {@link RuntimeHintsRegistrar} for what the starter uses reflectively at run time, for
 * AOT-processed applications and native images:
 * <ul>
 * <li>binding {@link WorkQueueProperties}, which {@link WorkQueueBeanRegistrar} does on
 * each start;</li>
 * <li>{@link WorkQueueFactory#create(String)}, the factory method of the queue beans, and
 * the queues' {@code shutDown} destroy method, as the registrar registers those beans at
 * run time;</li>
 * <li>the Lua scripts of the Redis backend, read from the class path.</li>
 * </ul>
 * The {@code @QueueWorker} methods need no entry here: the annotation is
 * {@link org.springframework.aot.hint.annotation.Reflective @Reflective}, so Spring
 * registers each one it finds on a bean.
 */
class WorkQueueRuntimeHints implements RuntimeHintsRegistrar {

	/** The queue classes {@code WorkQueueFactory} builds; the Redis one when present. */
	private static final String[] QUEUE_CLASSES = { "dev.workqueue.RateLimitingWorkQueue",
			"dev.workqueue.redis.RedisWorkQueue" };

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		BindableRuntimeHintsRegistrar.forTypes(WorkQueueProperties.class).registerHints(hints, classLoader);
		hints.reflection()
			.registerMethod(ReflectionUtils.findMethod(WorkQueueFactory.class, "create", String.class),
					ExecutableMode.INVOKE);
		for (String queueClass : QUEUE_CLASSES) {
			hints.reflection()
				.registerType(TypeReference.of(queueClass), (type) -> type.onReachableType(TypeReference.of(queueClass))
					.withMethod("shutDown", List.of(), ExecutableMode.INVOKE));
		}
		hints.resources().registerPattern("dev/workqueue/redis/*.lua");
	}

}
