package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import dev.workqueue.store.SharedResource;
import dev.workqueue.time.Clock;

/**
 * Keeps a queue table from growing with the items that passed through it: counts finished
 * rows and vacuums the table itself where autovacuum is off, and deletes the expired rows
 * of its limiters' table. One per JVM, data source, table and {@link VacuumPolicy},
 * shared by the handles on that table ({@link #acquire}, counting references; the last
 * {@link #release()} stops it). Handles with different policies get keepers of their own:
 * each does what its policy says, and the advisory lock below keeps them from working at
 * once.
 * <p>
 * <b>On a server without autovacuum</b> ({@code SHOW autovacuum} is {@code off}, or
 * {@code track_counts} is, or the table has {@code autovacuum_enabled = false}) the queue
 * vacuums its own table: a queue that quietly bloats is no answer. Under
 * {@link VacuumPolicy#AUTO} (the default) the keeper runs
 * {@code VACUUM (SKIP_LOCKED, TRUNCATE false)} on the table once at least
 * {@value Settings#DEFAULT_VACUUM_ROWS} rows finished since its last vacuum, at most once
 * a second, and every {@value Settings#DEFAULT_LIMIT_EVERY}th time also {@code ANALYZE}s
 * it (autovacuum would have) and vacuums the {@code _limit} table. Where autovacuum runs
 * it only sweeps; {@link VacuumPolicy#ALWAYS} vacuums there too,
 * {@link VacuumPolicy#NEVER} nowhere. Dead rows come in proportion to throughput, so a
 * fixed count and a short interval keep the table near its live size: what piles up
 * between two vacuums is at most a second of traffic.
 * <p>
 * Every minute it deletes the expired rows of the {@code _limit} table (failure history
 * and buckets nobody touched for their time to live), skipping rows that a caller's open
 * transaction holds, looks again whether autovacuum runs for the table, and where the
 * instances vacuum, vacuums the {@code _limit} table: the shared-gauges row of every
 * queue changes at each tick of its reporting instance, busy or idle, so that table would
 * grow without end on a queue that moves no items.
 * <p>
 * One instance at a time does the work across every JVM: a run takes
 * {@code pg_try_advisory_lock} with a key derived from the table's name on a connection
 * taken for that moment, in auto-commit (VACUUM runs outside transactions), and skips if
 * another holds it. A user that may not vacuum the table (not its owner) gets a warning
 * from the server: the keeper logs it once and carries on, trying again a sweep interval
 * later (the ownership may change). Database failures are logged once per outage. The
 * work never fails the queue.
 * <p>
 * <b>A held horizon.</b> No vacuum (the keeper's or autovacuum's) removes a row that a
 * snapshot still open anywhere in the database may see: a forgotten
 * {@code REPEATABLE READ} transaction, a long report, leaves the table to grow with every
 * item and slows every claim. At each sweep, and before each of its vacuums, the keeper
 * looks for the session with the oldest snapshot whose transaction is older than
 * {@link Settings#heldAfter()}: it logs a warning naming it (pid, application, user, age)
 * once, shows it to health ({@link #warning()}: the queue works, slower), and backs its
 * vacuums off (doubling to the sweep interval), since they remove nothing more; once no
 * session holds it, it says so and vacuums as before.
 * <p>
 * <b>Concurrency.</b> {@link #finished} adds to an atomic counter and, when the count
 * crosses the threshold, rings the {@link Alarm} that the keeper's thread
 * (<code>workqueue-&lt;table&gt;-keeper</code>, daemon) sleeps on, as the last release
 * does once it set {@code closed}: neither waits for the database. The alarm stays rung
 * until the thread's next sleep, so a ring between the thread's look at the count and its
 * sleep is not lost. Everything else (when the last vacuum ran, the cached autovacuum
 * probe, the outage flags) belongs to the thread. The registry ({@link SharedResource})
 * counts the references under its own lock.
 */
final class TableKeeper implements FinishedRows {

	private static final System.Logger logger = System.getLogger(TableKeeper.class.getName());

	/**
	 * The first wait of vacuums while the horizon is held, at least: doubled, then 2x.
	 */
	private static final long MIN_HELD_BACKOFF_NANOS = 50_000_000L;

	/** Rows deleted per statement of the expiry sweep. */
	private static final int SWEEP_BATCH = 5_000;

	private static final SqlStatement LOCK = SqlStatement.load("keeper_lock", null);

	private static final SqlStatement UNLOCK = SqlStatement.load("keeper_unlock", null);

	private static final SqlStatement HORIZON = SqlStatement.load("keeper_horizon", null);

	private static final SqlStatement AUTOVACUUM = SqlStatement.load("keeper_autovacuum", null);

	/** The shared keepers. */
	private static final SharedResource<Key, TableKeeper> registry = new SharedResource<>(TableKeeper::stop);

	private final DataSource dataSource;

	private final String table;

	private final String limitTable;

	private final SqlStatement sweep;

	private final Settings settings;

	private final long lockKey;

	private final Clock clock = Clock.system();

	/** Rows finished since the last vacuum (or since autovacuum took over). */
	private final AtomicLong finishedRows = new AtomicLong();

	/** Rung when the count crosses the threshold, and on the last release. */
	private final Alarm alarm = new Alarm(this.clock);

	/** Set by the last release. */
	private volatile boolean closed;

	/** Completed vacuums and sweeps, and attempts; for tests. */
	private final AtomicLong vacuums = new AtomicLong();

	private final AtomicLong sweeps = new AtomicLong();

	private final AtomicLong attempts = new AtomicLong();

	// The thread's own state.

	/** The earliest time of the next vacuum. */
	private long nextVacuumNanos;

	private long nextSweepNanos;

	/** Whether autovacuum runs for the table, as last probed; null before. */
	private Boolean autovacuumRuns;

	private boolean failing;

	private boolean refused;

	/** How long vacuums wait while the horizon is held; 0 when it is not. */
	private long heldBackoffNanos;

	/**
	 * The session holding back the cleanup horizon, as health shows it; null for none.
	 */
	private volatile String heldHorizon;

	private TableKeeper(DataSource dataSource, String table, Settings settings) {
		this.dataSource = dataSource;
		this.table = table;
		this.limitTable = table + "_limit";
		this.sweep = SqlStatement.load("keeper_sweep", table);
		this.settings = settings;
		this.lockKey = lockKey(table);
		long nowNanos = this.clock.nanoTime();
		this.nextVacuumNanos = nowNanos;
		this.nextSweepNanos = nowNanos;
	}

	/**
	 * Returns the shared keeper of {@code table} under the policy of {@code settings},
	 * made with {@code settings} if this is its first acquire (later ones share it as it
	 * is); pair each call with {@link #release()}.
	 * @param dataSource where it takes connections
	 * @param table the table
	 * @param settings when it works
	 * @return the keeper
	 */
	static TableKeeper acquire(DataSource dataSource, String table, Settings settings) {
		Objects.requireNonNull(dataSource, "dataSource");
		Objects.requireNonNull(settings, "settings");
		TableName checked = new TableName(table);
		Key key = new Key(dataSource, checked.folded(), settings.policy());
		return registry.acquire(key, (first) -> {
			TableKeeper keeper = new TableKeeper(dataSource, checked.name(), settings);
			Thread thread = new Thread(keeper::keep, "workqueue-" + checked.name() + "-keeper");
			thread.setDaemon(true);
			thread.start();
			return keeper;
		});
	}

	@Override
	public void finished(int rows) {
		if (rows <= 0) {
			return;
		}
		long before = this.finishedRows.getAndAdd(rows);
		if (before < this.settings.vacuumRows() && before + rows >= this.settings.vacuumRows()) {
			this.alarm.ring();
		}
	}

	/** Gives back one {@link #acquire}. */
	@Override
	public void release() {
		registry.release(this);
	}

	/** Ends the keeper's thread once the last reference is given back. */
	private void stop() {
		this.closed = true;
		this.alarm.ring();
	}

	/** Completed vacuums of the table; for tests. */
	long vacuums() {
		return this.vacuums.get();
	}

	/** Completed expiry sweeps; for tests. */
	long sweeps() {
		return this.sweeps.get();
	}

	/**
	 * What holds back the database's cleanup horizon (so that no vacuum removes the rows
	 * of the items that passed since), for health: the session, its application and the
	 * age of its snapshot.
	 * @return the description, or {@code null} while nothing does
	 */
	@Override
	public String warning() {
		return this.heldHorizon;
	}

	/** Runs that took a connection (whatever came of them); for tests. */
	long attempts() {
		return this.attempts.get();
	}

	/**
	 * The advisory lock's key of a table: the same in every JVM, distinct per table but
	 * for a 2<sup>-64</sup> chance.
	 */
	static long lockKey(String table) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256")
				.digest(("workqueue-keeper:" + table.toLowerCase(Locale.ROOT)).getBytes(StandardCharsets.UTF_8));
			return ByteBuffer.wrap(digest).getLong();
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every JVM has SHA-256", ex);
		}
	}

	/** The thread's loop: sleep until a vacuum or a sweep is due, then run. */
	private void keep() {
		while (!this.closed) {
			long nowNanos = this.clock.nanoTime();
			long dueNanos = this.nextSweepNanos;
			if (vacuumWanted()) {
				dueNanos = Math.min(dueNanos, this.nextVacuumNanos);
			}
			if (nowNanos - dueNanos >= 0) {
				run(nowNanos);
				continue;
			}
			try {
				this.alarm.sleepUntil(dueNanos);
			}
			catch (InterruptedException ex) {
				// Nobody interrupts this thread but a JVM going down: stop.
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private boolean vacuumWanted() {
		return this.settings.policy() != VacuumPolicy.NEVER && this.finishedRows.get() >= this.settings.vacuumRows();
	}

	/** One run: the sweep if due, the vacuum if wanted and allowed. */
	private void run(long nowNanos) {
		boolean sweep = nowNanos - this.nextSweepNanos >= 0;
		boolean vacuum = vacuumWanted() && nowNanos - this.nextVacuumNanos >= 0;
		if (sweep) {
			this.nextSweepNanos = nowNanos + this.settings.sweepInterval().toNanos();
		}
		if (vacuum) {
			this.nextVacuumNanos = nowNanos + this.settings.minVacuumInterval().toNanos();
			if (this.autovacuumRuns != null && !this.settings.policy().vacuumsItself(this.autovacuumRuns) && !sweep) {
				// Autovacuum's job (as probed at the last sweep): count afresh.
				this.finishedRows.set(0);
				return;
			}
		}
		this.attempts.incrementAndGet();
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			if (!autoCommit) {
				connection.setAutoCommit(true);
			}
			try {
				work(connection, sweep, vacuum);
			}
			finally {
				if (!autoCommit) {
					connection.setAutoCommit(false);
				}
			}
			if (this.failing) {
				this.failing = false;
				logger.log(Level.INFO, "The keeper of table " + this.table + " works again");
			}
		}
		catch (SQLException | RuntimeException ex) {
			if (!this.failing) {
				this.failing = true;
				logger.log(Level.WARNING, "The keeper of table " + this.table
						+ " cannot vacuum it or sweep expired limiter rows; it tries again later", ex);
			}
			else {
				logger.log(Level.DEBUG, "The keeper of table " + this.table + " still fails", ex);
			}
		}
	}

	private void work(Connection connection, boolean sweep, boolean vacuum) throws SQLException {
		if (!tryLock(connection)) {
			// Another instance is at it; its vacuum and sweep serve this one too.
			return;
		}
		try {
			if (sweep || (vacuum && this.autovacuumRuns == null)) {
				this.autovacuumRuns = Autovacuum.probe(connection, this.table).runs();
			}
			if (sweep) {
				sweep(connection, this.settings.policy().vacuumsItself(this.autovacuumRuns));
			}
			boolean vacuumsItself = vacuum && this.settings.policy().vacuumsItself(this.autovacuumRuns);
			if (sweep || vacuumsItself) {
				// Whoever vacuums (autovacuum too) is held back alike: look at each
				// sweep.
				watchHorizon(connection);
			}
			if (vacuum) {
				long counted = this.finishedRows.get();
				if (!vacuumsItself || vacuum(connection)) {
					this.finishedRows.addAndGet(-counted);
				}
				if (vacuumsItself && this.heldBackoffNanos > 0) {
					// It removed what died before the horizon, and will remove nothing
					// more while the horizon stays: back off.
					this.nextVacuumNanos = this.clock.nanoTime() + this.heldBackoffNanos;
					this.heldBackoffNanos = Math.min(2 * this.heldBackoffNanos, maxHeldBackoffNanos());
				}
			}
		}
		finally {
			unlock(connection);
		}
	}

	/**
	 * Finds the session whose snapshot holds back the cleanup horizon of this database
	 * (the oldest {@code backend_xmin} among the sessions whose transaction, or query,
	 * began at least {@link Settings#heldAfter()} ago), warns once naming it and backs
	 * vacuums off, or says the horizon moves again and returns to normal. Another role's
	 * sessions show their {@code backend_xmin} only to a superuser or a member of
	 * {@code pg_read_all_stats}.
	 */
	private void watchHorizon(Connection connection) throws SQLException {
		String holder = null;
		try (PreparedStatement statement = HORIZON.prepare(connection)) {
			HORIZON.setLong(statement, "held_millis", this.settings.heldAfter().toMillis());
			try (ResultSet result = statement.executeQuery()) {
				if (result.next()) {
					holder = "session pid " + result.getInt(1) + " (application '" + result.getString(2) + "', user '"
							+ result.getString(3) + "') has held a snapshot for " + (result.getLong(4) / 1000) + " s ("
							+ result.getLong(5) + " transactions ago)";
				}
			}
		}
		String was = this.heldHorizon;
		if (holder != null) {
			if (was == null) {
				this.heldBackoffNanos = Math.min(
						2 * Math.max(this.settings.minVacuumInterval().toNanos(), MIN_HELD_BACKOFF_NANOS),
						maxHeldBackoffNanos());
				logger.log(Level.WARNING, "Cleanup of table " + this.table + " is held back: " + holder
						+ "; no vacuum removes the rows of the items that passed since, so the table grows and "
						+ "claims slow down until that transaction ends. Vacuums of the table back off meanwhile");
			}
			this.heldHorizon = "cleanup held back: " + holder;
		}
		else if (was != null) {
			this.heldHorizon = null;
			this.heldBackoffNanos = 0;
			this.nextVacuumNanos = this.clock.nanoTime();
			logger.log(Level.INFO, "Cleanup of table " + this.table + " is no longer held back (was: " + was + ")");
		}
	}

	private long maxHeldBackoffNanos() {
		return Math.max(this.settings.sweepInterval().toNanos(), this.settings.minVacuumInterval().toNanos());
	}

	private boolean tryLock(Connection connection) throws SQLException {
		try (PreparedStatement statement = LOCK.prepare(connection)) {
			LOCK.setLong(statement, "key", this.lockKey);
			try (ResultSet result = statement.executeQuery()) {
				return result.next() && result.getBoolean(1);
			}
		}
	}

	private void unlock(Connection connection) throws SQLException {
		// A session lock on a pooled connection outlives the moment: give it back.
		try (PreparedStatement statement = UNLOCK.prepare(connection)) {
			UNLOCK.setLong(statement, "key", this.lockKey);
			statement.execute();
		}
	}

	/**
	 * Deletes the expired limiter rows, in batches, skipping rows locked by others; then
	 * vacuums the limiters' table if asked.
	 */
	private void sweep(Connection connection, boolean vacuum) throws SQLException {
		try (PreparedStatement statement = this.sweep.prepare(connection)) {
			this.sweep.setInt(statement, "batch", SWEEP_BATCH);
			while (statement.executeUpdate() == SWEEP_BATCH) {
				// more to delete
			}
		}
		if (vacuum) {
			// Not the table's vacuum: a refusal here does not put that one off.
			SQLWarning warning = vacuumOnce(connection, this.limitTable, false);
			if (warning != null) {
				refused(this.limitTable, warning);
			}
		}
		this.sweeps.incrementAndGet();
	}

	/**
	 * Vacuums the table (and sometimes the limiters' table); returns whether the server
	 * did, which it does not when the user may not (a warning, not an error).
	 */
	private boolean vacuum(Connection connection) throws SQLException {
		boolean full = (this.vacuums.get() + 1) % this.settings.limitEvery() == 0;
		// The leases' table with it: every item passes through both.
		boolean done = vacuum(connection, this.table + ", " + this.table + "_lease", full);
		if (done && full) {
			vacuum(connection, this.limitTable, false);
		}
		if (done) {
			this.vacuums.incrementAndGet();
			if (this.refused) {
				this.refused = false;
				logger.log(Level.INFO, "The keeper of table " + this.table + " may vacuum it again");
			}
		}
		return done;
	}

	private boolean vacuum(Connection connection, String relation, boolean analyze) throws SQLException {
		SQLWarning warning = vacuumOnce(connection, relation, analyze);
		if (warning == null) {
			return true;
		}
		// Refused (not the owner) or skipped (locked): try again after a while, not at
		// every threshold.
		this.nextVacuumNanos = this.clock.nanoTime()
				+ Math.max(this.settings.minVacuumInterval().toNanos(), this.settings.sweepInterval().toNanos());
		refused(relation, warning);
		return false;
	}

	/** Runs one VACUUM; returns the server's warning if it did not vacuum. */
	private static SQLWarning vacuumOnce(Connection connection, String relation, boolean analyze) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			// SKIP_LOCKED: never wait behind another vacuum or a schema change.
			// TRUNCATE false: never take the table's ACCESS EXCLUSIVE lock to give the
			// empty pages at its end back, for pages the next items fill again. On a
			// busy table a vacuum asks for that lock every 50 ms for up to 5 s, holding
			// a pool connection, and while it holds it every add, claim and done waits.
			// As the schema's vacuum_truncate, also on a table whose schema ran from an
			// earlier release's script (a migration) and lacks that setting.
			statement.execute("VACUUM (SKIP_LOCKED, TRUNCATE false" + (analyze ? ", ANALYZE) " : ") ") + relation);
			return statement.getWarnings();
		}
	}

	/** Logs once that a vacuum could not run, until one runs again. */
	private void refused(String relation, SQLWarning warning) {
		if (!this.refused) {
			this.refused = true;
			logger.log(Level.WARNING,
					"Cannot vacuum " + relation + " (" + warning.getMessage()
							+ "); unless it is vacuumed otherwise, it grows with every item that passes through. "
							+ "The queue carries on, and tries again later");
		}
	}

	/**
	 * When the keeper works.
	 *
	 * @param policy whether it vacuums the table
	 * @param vacuumRows how many finished rows make a vacuum due
	 * @param minVacuumInterval the shortest time between two vacuums
	 * @param sweepInterval the time between two expiry sweeps (and autovacuum probes)
	 * @param limitEvery every how many vacuums the limiters' table is vacuumed too, and
	 * the table analyzed
	 * @param heldAfter how old a session's transaction must be to count as holding back
	 * the cleanup horizon
	 */
	record Settings(VacuumPolicy policy, long vacuumRows, Duration minVacuumInterval, Duration sweepInterval,
			int limitEvery, Duration heldAfter) {

		static final long DEFAULT_VACUUM_ROWS = 1_000;

		static final int DEFAULT_LIMIT_EVERY = 10;

		/** A transaction this old holds back a busy queue's cleanup noticeably. */
		static final Duration DEFAULT_HELD_AFTER = Duration.ofSeconds(30);

		/** The defaults: vacuum where autovacuum does not. */
		static final Settings DEFAULT = of(VacuumPolicy.AUTO);

		Settings {
			Objects.requireNonNull(policy, "policy");
			Objects.requireNonNull(minVacuumInterval, "minVacuumInterval");
			Objects.requireNonNull(sweepInterval, "sweepInterval");
			Objects.requireNonNull(heldAfter, "heldAfter");
			if (heldAfter.isNegative() || vacuumRows < 1 || limitEvery < 1 || minVacuumInterval.isNegative()
					|| sweepInterval.isNegative()) {
				throw new IllegalArgumentException("Bad keeper settings: " + vacuumRows + " rows, every " + limitEvery
						+ ", " + minVacuumInterval + ", " + sweepInterval);
			}
		}

		/** As the canonical constructor, with the default {@code heldAfter}. */
		Settings(VacuumPolicy policy, long vacuumRows, Duration minVacuumInterval, Duration sweepInterval,
				int limitEvery) {
			this(policy, vacuumRows, minVacuumInterval, sweepInterval, limitEvery, DEFAULT_HELD_AFTER);
		}

		/** The default settings with another policy. */
		static Settings of(VacuumPolicy policy) {
			return new Settings(policy, DEFAULT_VACUUM_ROWS, Duration.ofSeconds(1), Duration.ofMinutes(1),
					DEFAULT_LIMIT_EVERY);
		}

	}

	/**
	 * What the server says about autovacuum for a table.
	 *
	 * @param server the server's {@code autovacuum} setting
	 * @param trackCounts the server's {@code track_counts} (autovacuum needs it)
	 * @param table the table's {@code autovacuum_enabled} (true when not set)
	 */
	record Autovacuum(boolean server, boolean trackCounts, boolean table) {

		/** Whether autovacuum runs for the table. */
		boolean runs() {
			return this.server && this.trackCounts && this.table;
		}

		/**
		 * Asks the server. A missing table reads as {@code autovacuum_enabled}: its
		 * vacuum then fails, and says so.
		 */
		static Autovacuum probe(Connection connection, String table) throws SQLException {
			try (PreparedStatement statement = AUTOVACUUM.prepare(connection)) {
				AUTOVACUUM.setString(statement, "relation", table);
				try (ResultSet result = statement.executeQuery()) {
					result.next();
					return new Autovacuum(result.getBoolean(1), result.getBoolean(2), result.getBoolean(3));
				}
			}
		}

	}

	private record Key(DataSource dataSource, String table, VacuumPolicy policy) {
	}

}
