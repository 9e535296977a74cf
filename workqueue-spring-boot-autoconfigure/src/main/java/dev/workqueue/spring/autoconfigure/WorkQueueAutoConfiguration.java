package dev.workqueue.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of work queues.
 * <p>
 * Creates:
 * <ul>
 * <li>one {@link dev.workqueue.RateLimitingQueue} bean per {@code workqueue.queues}
 * entry, named after it (a bean the application defines under that name is used instead):
 * in memory, built with every {@link dev.workqueue.spring.WorkQueueCustomizer} bean and
 * the {@link dev.workqueue.time.Clock} bean if there is one, else the system clock; or,
 * for {@code backend: redis}, in Redis on Spring Boot's Redis connection, built with
 * every {@link dev.workqueue.spring.RedisWorkQueueCustomizer} bean; for
 * {@code backend: postgres}, in the application's database through its
 * {@code DataSource}, after its database initialization, built with every
 * {@link dev.workqueue.spring.PostgresWorkQueueCustomizer} bean;</li>
 * <li>a {@link dev.workqueue.spring.WorkQueueRegistry} of every queue bean;</li>
 * <li>the worker threads of every {@link dev.workqueue.spring.QueueWorker @QueueWorker}
 * method, run by a {@link dev.workqueue.spring.worker.WorkerContainerRegistry} that
 * starts them with the context and drains the queues when it closes.</li>
 * </ul>
 * The registries and the annotation post-processor back off when the application defines
 * its own. {@code workqueue.enabled=false} creates nothing. Invalid {@code workqueue.*}
 * properties fail the start-up, listing every problem.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "workqueue.enabled", matchIfMissing = true)
@ImportRuntimeHints(WorkQueueRuntimeHints.class)
@Import({ WorkQueueConfigurations.QueueConfiguration.class, QueueBackendConfigurations.Memory.class,
		QueueBackendConfigurations.Redis.class, QueueBackendConfigurations.Postgres.class,
		WorkQueueConfigurations.WorkerConfiguration.class, WorkQueueConfigurations.ObservationConfiguration.class })
public final class WorkQueueAutoConfiguration {

}
