package dev.workqueue.spring.autoconfigure;

import java.util.Map;
import java.util.Objects;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@link ConditionalOnQueueBackend}: matches when at least one {@code workqueue.queues}
 * entry has the backend, its own or the defaults'. A backend that no queue uses defines
 * nothing and touches no store (an application may have workqueue-postgres on its class
 * path and a {@code DataSource} of another kind, or Spring Boot's Redis support for
 * something else).
 * <p>
 * Properties that cannot be read match: {@link WorkQueueBeanRegistrar} reports them
 * before any bean is created.
 */
class OnQueueBackendCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, Object> attributes = Objects
			.requireNonNull(metadata.getAnnotationAttributes(ConditionalOnQueueBackend.class.getName()));
		WorkQueueProperties.Backend backend = (WorkQueueProperties.Backend) attributes.get("value");
		String items = "with backend " + backend.value();
		ConditionMessage.Builder message = ConditionMessage.forCondition(ConditionalOnQueueBackend.class, items);
		boolean any;
		try {
			WorkQueueProperties properties = Binder.get(context.getEnvironment())
				.bindOrCreate(WorkQueuePropertiesValidator.PREFIX, WorkQueueProperties.class);
			any = WorkQueueSettings.of(properties).queues().stream().anyMatch((queue) -> queue.backend() == backend);
		}
		catch (RuntimeException ex) {
			return ConditionOutcome.match(message.because("the workqueue properties are invalid: " + ex.getMessage()));
		}
		return any ? ConditionOutcome.match(message.found("queue").items(items))
				: ConditionOutcome.noMatch(message.didNotFind("queue").items(items));
	}

}
