package dev.workqueue.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when at least one {@code workqueue.queues} entry has backend {@code postgres},
 * its own or the defaults': the postgres backend then creates its table and waits for the
 * application's database initialization, and otherwise touches no database at all (an
 * application may have workqueue-postgres on its class path and a {@code DataSource} of
 * another kind).
 * <p>
 * Properties that cannot be read match: {@link WorkQueueBeanRegistrar} reports them
 * before any bean is created.
 */
class OnPostgresQueuesCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		ConditionMessage.Builder message = ConditionMessage.forCondition("Work queues with backend postgres");
		boolean any;
		try {
			WorkQueueProperties properties = Binder.get(context.getEnvironment())
				.bindOrCreate(WorkQueuePropertiesValidator.PREFIX, WorkQueueProperties.class);
			any = WorkQueueSettings.of(properties)
				.queues()
				.stream()
				.anyMatch((queue) -> queue.backend() == WorkQueueProperties.Backend.POSTGRES);
		}
		catch (RuntimeException ex) {
			return ConditionOutcome.match(message.because("the workqueue properties are invalid: " + ex.getMessage()));
		}
		return any ? ConditionOutcome.match(message.found("queue").items("with backend postgres"))
				: ConditionOutcome.noMatch(message.didNotFind("queue").items("with backend postgres"));
	}

}
