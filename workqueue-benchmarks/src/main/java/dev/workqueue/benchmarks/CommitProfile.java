package dev.workqueue.benchmarks;

import java.util.Locale;

/**
 * Commits per item over one or more measured windows (issue 30): the database's
 * {@code pg_stat_database.xact_commit} read just before and just after each window, the
 * differences added up and divided by the items the windows processed. The database is
 * the trial's own ({@link PostgresAdmin}), so every commit counted is a contender's: its
 * adds, claims, dones, lease renewals, polls that found nothing and housekeeping alike.
 * See {@link PostgresAdmin} for when a window is exact.
 */
final class CommitProfile {

	private long commits;

	private long items;

	private long before = -1;

	/**
	 * Reads the count that opens a window.
	 * @param admin the measurement's connection
	 */
	void start(PostgresAdmin admin) {
		this.before = admin.commits();
	}

	/**
	 * Reads the count that closes the window and adds the window's commits.
	 * @param admin the connection {@link #start} used
	 * @param items the items processed in the window
	 */
	void stop(PostgresAdmin admin, long items) {
		if (this.before < 0) {
			throw new IllegalStateException("no window started");
		}
		this.commits += admin.commits() - this.before;
		this.items += items;
		this.before = -1;
	}

	/** Forgets every window. */
	void reset() {
		this.commits = 0;
		this.items = 0;
		this.before = -1;
	}

	long items() {
		return this.items;
	}

	long commits() {
		return this.commits;
	}

	/** Commits per item of the windows so far ({@code NaN} without items). */
	double perItem() {
		return (this.items == 0) ? Double.NaN : (double) this.commits / this.items;
	}

	/**
	 * Returns a one-line report, e.g.
	 * {@code commits per item (ours drain, 20000 items): 1.02 (20400 commits)}.
	 * @param what what was measured
	 * @return the line
	 */
	String line(String what) {
		return String.format(Locale.ROOT, "commits per item (%s, %d items): %.3f (%d commits)", what, this.items,
				perItem(), this.commits);
	}

}
