package dev.workqueue.spring.autoconfigure;

import java.sql.Connection;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.NamedBeanHolder;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.core.log.LogMessage;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.workqueue.ItemCodec;
import dev.workqueue.postgres.PostgresWorkQueues;
import dev.workqueue.postgres.VacuumPolicy;
import dev.workqueue.spring.PostgresWorkQueueCustomizer;
import dev.workqueue.time.Clock;

/**
 * The postgres backend: builds the queues whose {@code backend} is {@code postgres} with
 * workqueue-postgres, in the application's own database, so that an add made inside the
 * application's transaction commits or rolls back with it, with shared rate limiters
 * built from the same YAML sections as the memory backend's, and counts failures in the
 * database so that {@code max-retries} holds across instances.
 * <p>
 * The connections are the application's: its {@link DataSource} bean, wrapped in a
 * {@link TransactionAwareDataSourceProxy} for adds (an add joins the transaction Spring
 * has open on the calling thread, as {@link TransactionSynchronizationManager} tells),
 * and the plain one for the workers' gets, dones and lease renewals, which never join a
 * caller's transaction. The one {@code LISTEN} connection of the application is opened
 * with {@code DriverManager} from Boot's {@link JdbcConnectionDetails}, outside the pool
 * (when the application defines its own {@code DataSource} and so has no such details,
 * workqueue-postgres opens it outside the pool where the pool tells how, and holds one of
 * its connections otherwise). The same source opens the connection of a shared token
 * bucket's token taken inside the application's transaction, which never waits for the
 * pool. The table is {@code workqueue.postgres.table}; it must exist once the
 * application's database initialization has run, else the start-up fails naming it.
 * <p>
 * Each queue, a priority queue too, is customized by every
 * {@link PostgresWorkQueueCustomizer} bean in order, after its name, table, lease,
 * given-up bound (its given-up items are kept in the database), metrics and wake-up
 * options are set. An item type other than {@code String} needs an {@link ItemCodec} bean
 * named {@code <queue>ItemCodec}. The time is the database's unless a customizer gives
 * the builder a clock: the application's {@link Clock} bean times its memory queues only
 * (contract §3). The queues are shut down when this backend stops, after the workers,
 * handing back what they claimed and nobody took, and before the data source closes.
 */
final class PostgresBackend extends SharedQueuesLifecycle implements QueueBackend {

	/** This backend's bean name, as {@link QueueBackend#beanName} makes it. */
	private static final String BEAN_NAME = QueueBackend.beanName(WorkQueueProperties.Backend.POSTGRES);

	/**
	 * The builder's own limiters: failure counts join the caller's transaction as its
	 * adds do (token buckets take their token outside it), and a worker's forgets ride
	 * with its done.
	 */
	private static final QueueBuilderCalls<PostgresWorkQueues.Builder<Object>, PostgresWorkQueueCustomizer> CALLS = new QueueBuilderCalls<>(
			PostgresWorkQueueCustomizer::customize, PostgresWorkQueues.Builder::metrics,
			PostgresWorkQueues.Builder::rateLimiters, PostgresWorkQueues.Builder::starvationTimeout,
			PostgresWorkQueues.Builder::buildPriorityQueue, PostgresWorkQueues.Builder::buildRateLimitingQueue);

	private static final Log logger = LogFactory.getLog(PostgresBackend.class);

	private final WorkQueueProperties.Postgres properties;

	private final ConfigurableListableBeanFactory beanFactory;

	private final ObjectProvider<WorkQueueMetricsFactory> metrics;

	private final ObjectProvider<PostgresWorkQueueCustomizer> customizers;

	/** Resolved with the first queue; guarded by this. */
	private @Nullable Connections connections;

	/**
	 * Creates the backend.
	 * @param properties the {@code workqueue.postgres.*} properties
	 * @param beanFactory where to find the data source and the connection details
	 * @param metrics the metrics of each queue, if any
	 * @param customizers the customizers of the queue builders
	 */
	PostgresBackend(WorkQueueProperties.Postgres properties, ConfigurableListableBeanFactory beanFactory,
			ObjectProvider<WorkQueueMetricsFactory> metrics, ObjectProvider<PostgresWorkQueueCustomizer> customizers) {
		this.properties = properties;
		this.beanFactory = beanFactory;
		this.metrics = metrics;
		this.customizers = customizers;
	}

	@Override
	public synchronized BuiltQueue create(QueueSettings settings) {
		String name = settings.name();
		Connections connections = connections(name);
		PostgresWorkQueues.Builder<Object> queues = PostgresWorkQueues
			.builder(connections.adds(), QueueItemCodecs.of(this.beanFactory, name))
			.workerDataSource(connections.workers())
			.callerTransaction(transactionOf(connections.workers()))
			.name(name)
			.table(this.properties.getTable())
			.lease(this.properties.getLease())
			.listen(this.properties.isListen())
			.pollInterval(this.properties.getPollInterval())
			.synchronousCommit(this.properties.isSynchronousCommit())
			.vacuum(VacuumPolicy.valueOf(this.properties.getVacuum().name()))
			.givenUp(settings.givenUp().keep(), settings.givenUp().retention());
		if (this.properties.isListen() && connections.listen() != null) {
			queues.listenConnection(connections.listen());
		}
		return track(CALLS.build(settings, queues, this.metrics, this.customizers));
	}

	/**
	 * Whether the calling thread's Spring transaction holds a connection of
	 * {@code dataSource}: only then does an add join it. A transaction on another
	 * resource alone (Kafka's, say) must not make an add wait for a commit that its
	 * connection, taken outside that transaction, never gets.
	 */
	private static BooleanSupplier transactionOf(DataSource dataSource) {
		return () -> TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.hasResource(dataSource);
	}

	/**
	 * The application's connections, resolved once; the table is checked with them. The
	 * data source bean is destroyed after this backend, and so after the queues.
	 */
	private Connections connections(String queueName) {
		if (this.connections == null) {
			if (this.beanFactory.getBeanNamesForType(DataSource.class).length == 0) {
				throw new IllegalStateException("Queue '" + queueName + "' has backend postgres, but the application "
						+ "has no DataSource: add spring-boot-starter-jdbc with spring.datasource.* properties, or "
						+ "define a DataSource bean");
			}
			NamedBeanHolder<DataSource> dataSource = this.beanFactory.resolveNamedBean(DataSource.class);
			this.beanFactory.registerDependentBean(dataSource.getBeanName(), BEAN_NAME);
			PostgresQueueTable.check(dataSource.getBeanInstance(), this.properties.getTable());
			JdbcConnectionDetails details = this.beanFactory.getBeanProvider(JdbcConnectionDetails.class).getIfUnique();
			if (details == null && this.properties.isListen()) {
				logger.info("Work queues with backend postgres open their LISTEN connection through the application's "
						+ "DataSource (there is no JdbcConnectionDetails bean): outside its pool where the pool tells "
						+ "how (HikariCP, pgjdbc's PGSimpleDataSource), else one of its connections held for good");
			}
			this.connections = new Connections(dataSource.getBeanInstance(),
					new TransactionAwareDataSourceProxy(dataSource.getBeanInstance()),
					(details != null) ? new DriverManagerConnections(details) : null);
			logger.debug(LogMessage.format("Work queues with backend postgres use DataSource bean '%s'",
					dataSource.getBeanName()));
		}
		return this.connections;
	}

	/**
	 * The connections of the queues.
	 *
	 * @param workers the application's data source: gets, dones, renewals
	 * @param adds the same, transaction-aware: adds join the caller's transaction
	 * @param listen opens the {@code LISTEN} connection outside the pool, {@code null} to
	 * let workqueue-postgres hold one from the data source
	 */
	private record Connections(DataSource workers, DataSource adds, @Nullable Supplier<Connection> listen) {

	}

}
