package dev.workqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The peer of the PostgreSQL benchmarks (issue 30): db-scheduler's one-time tasks, the
 * database-backed queue a Spring user would pick instead, at its fastest documented
 * settings. A queue is a one-time task named after it; an item is a task instance whose
 * id is the item, scheduled with {@code scheduleIfNotExists} (db-scheduler's add of an
 * instance not already scheduled: a select, then an insert) to run now or after a delay;
 * executing it calls the sink, and completing it deletes its row.
 * <p>
 * <b>Settings</b> (README "Polling strategy", "Consider tuning", docs/performance.md):
 * {@code pollUsingLockAndFetch(1.0, 4.0)} (the README's "for high throughput": one
 * {@code UPDATE ... FOR UPDATE SKIP LOCKED ... RETURNING} picks up to four executions per
 * thread, and a new batch is fetched at once when a thread's share is left), the
 * {@code threads} the workload asks for, {@code enableImmediateExecution()} (an execution
 * scheduled to run now wakes the local scheduler instead of waiting for the next poll)
 * and a polling interval of {@value #POLLING_INTERVAL} (the interval is not bounded by
 * the docs; see RESULTS.md for the intervals tried). The heartbeat stays at its default
 * (5 minutes): executions here last microseconds, so no heartbeat is ever written. The
 * system properties {@code workqueue.bench.dbscheduler.polling} (an ISO duration) and
 * {@code workqueue.bench.dbscheduler.lockAndFetch} ({@code lower,upper}) override the two
 * tunables, to try others.
 * <p>
 * The table is db-scheduler's PostgreSQL DDL (its {@code postgresql_tables.sql}, every
 * index included), named {@value #TABLE}. The scheduler's lock-and-fetch picks due
 * executions of every task in its table, so a workload runs one queue at a time in it and
 * empties it between iterations.
 */
class DbSchedulerContender implements PostgresContender {

	static final String TABLE = "wqbench_scheduled_tasks";

	static final String POLLING_INTERVAL = "PT0.01S";

	private static final Duration POLLING = Duration
		.parse(System.getProperty("workqueue.bench.dbscheduler.polling", POLLING_INTERVAL));

	private static final double[] LOCK_AND_FETCH = fractions(
			System.getProperty("workqueue.bench.dbscheduler.lockAndFetch", "1.0,4.0"));

	private final StatementCounts statements = new StatementCounts();

	private HikariDataSource dataSource;

	/** The pool, through the statement counter. */
	private DataSource counted;

	private String clientName;

	@Override
	public void install(PostgresAdmin admin) {
		admin.execute("CREATE TABLE " + TABLE + " (task_name text NOT NULL, task_instance text NOT NULL,"
				+ " task_data bytea, execution_time timestamptz NOT NULL, picked boolean NOT NULL, picked_by text,"
				+ " last_success timestamptz, last_failure timestamptz, consecutive_failures int,"
				+ " last_heartbeat timestamptz, version bigint NOT NULL, priority smallint,"
				+ " PRIMARY KEY (task_name, task_instance));" + " CREATE INDEX " + TABLE + "_execution_time_idx ON "
				+ TABLE + " (execution_time);" + " CREATE INDEX " + TABLE + "_last_heartbeat_idx ON " + TABLE
				+ " (last_heartbeat);" + " CREATE INDEX " + TABLE + "_priority_execution_time_idx ON " + TABLE
				+ " (priority DESC, execution_time ASC)");
	}

	@Override
	public List<String> tables() {
		return List.of(TABLE);
	}

	@Override
	public void open(String database, String clientName) {
		this.clientName = clientName;
		this.dataSource = PostgresContender.pool(database, clientName);
		this.counted = this.statements.wrap(this.dataSource);
	}

	@Override
	public Queue queue(String name) {
		return new TaskQueue(name);
	}

	@Override
	public String statementsPerItem(long items) {
		return this.statements.perItem(items);
	}

	@Override
	public void close() {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	private static double[] fractions(String text) {
		String[] parts = text.split(",");
		return new double[] { Double.parseDouble(parts[0].trim()), Double.parseDouble(parts[1].trim()) };
	}

	/**
	 * One one-time task: adds through a plain {@code SchedulerClient} until this JVM
	 * consumes, then through the running scheduler, so that its immediate-execution hint
	 * sees them.
	 */
	private final class TaskQueue implements Queue {

		private final OneTimeTask<Void> task;

		private volatile Consumer<String> sink = (item) -> {
		};

		private volatile SchedulerClient client;

		private volatile Scheduler scheduler;

		TaskQueue(String name) {
			this.task = Tasks.oneTime(name).execute((instance, context) -> this.sink.accept(instance.getId()));
			this.client = SchedulerClient.Builder.create(DbSchedulerContender.this.counted, this.task)
				.tableName(TABLE)
				.build();
		}

		@Override
		public void add(String item) {
			this.client.scheduleIfNotExists(this.task.instance(item), Instant.now());
		}

		@Override
		public void addAfter(String item, Duration delay) {
			this.client.scheduleIfNotExists(this.task.instance(item), Instant.now().plus(delay));
		}

		@Override
		public void addAll(List<String> items) {
			List<TaskInstance<?>> instances = items.stream().<TaskInstance<?>>map(this.task::instance).toList();
			this.client.scheduleBatch(instances, Instant.now());
		}

		@Override
		public Consumers consume(int workers, Consumer<String> sink, Consumer<Throwable> failure) {
			if (this.scheduler != null) {
				throw new IllegalStateException("already consuming");
			}
			this.sink = sink;
			Scheduler scheduler = Scheduler.create(DbSchedulerContender.this.counted, this.task)
				.tableName(TABLE)
				.schedulerName(new SchedulerName.Fixed(DbSchedulerContender.this.clientName))
				.threads(workers)
				.pollUsingLockAndFetch(LOCK_AND_FETCH[0], LOCK_AND_FETCH[1])
				.pollingInterval(POLLING)
				.enableImmediateExecution()
				.build();
			scheduler.start();
			this.scheduler = scheduler;
			this.client = scheduler;
			return () -> {
				this.client = SchedulerClient.Builder.create(DbSchedulerContender.this.counted, this.task)
					.tableName(TABLE)
					.build();
				scheduler.stop();
			};
		}

		@Override
		public void stop() {
			Scheduler scheduler = this.scheduler;
			if (scheduler != null) {
				scheduler.stop();
			}
		}

	}

}
