package dev.workqueue.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Redis commands per item over one or more measured windows (issue 22), from
 * {@code INFO commandstats} taken just before and just after each window: every command
 * the server ran in between, by name, added up over the windows and divided by the items
 * the windows processed.
 * <p>
 * {@code INFO commandstats} counts each command a Lua script runs as well as the
 * {@code EVALSHA} that ran it, and whatever other clients of a shared server sent
 * meanwhile; the snapshots' own {@code INFO} is left out. Take the snapshots outside the
 * measured time, on a connection that sends nothing else in between. Calls that failed
 * (an error reply, or rejected) are kept apart as well, and {@link #line} names them.
 */
final class CommandProfile {

	private static final String PREFIX = "cmdstat_";

	private final Map<String, Long> calls = new HashMap<>();

	private final Map<String, Long> failed = new HashMap<>();

	private long items;

	private Map<String, Long> before;

	private Map<String, Long> failedBefore;

	/**
	 * Takes the snapshot that opens a window.
	 * @param admin the measurement's connection
	 */
	void start(RedisAdmin admin) {
		this.failedBefore = new HashMap<>();
		this.before = snapshot(admin, this.failedBefore);
	}

	/**
	 * Takes the snapshot that closes the window and adds its commands.
	 * @param admin the connection {@link #start} used
	 * @param items the items processed in the window
	 */
	void stop(RedisAdmin admin, long items) {
		if (this.before == null) {
			throw new IllegalStateException("no window started");
		}
		Map<String, Long> failedAfter = new HashMap<>();
		Map<String, Long> after = snapshot(admin, failedAfter);
		// The INFO that opened the window counted itself once it had run; the one that
		// closed it is not counted yet.
		after.merge("info", -1L, Long::sum);
		add(this.calls, this.before, after);
		add(this.failed, this.failedBefore, failedAfter);
		this.items += items;
		this.before = null;
		this.failedBefore = null;
	}

	/** Forgets every window. */
	void reset() {
		this.calls.clear();
		this.failed.clear();
		this.items = 0;
		this.before = null;
		this.failedBefore = null;
	}

	/** The items of every window. */
	long items() {
		return this.items;
	}

	/** Commands per item, every command added up. */
	double perItem() {
		long total = 0;
		for (long count : this.calls.values()) {
			total += count;
		}
		return ratio(total);
	}

	/**
	 * Calls of one command per item.
	 * @param command its name in lower case, as {@code INFO commandstats} gives it (e.g.
	 * {@code evalsha}, {@code client|setname})
	 * @return its calls per item
	 */
	double perItem(String command) {
		return ratio(this.calls.getOrDefault(command, 0L));
	}

	/**
	 * Returns the commands with the most calls, per item, most first: e.g.
	 * {@code evalsha 2.00, hget 1.00, rpush 1.00}.
	 * @param count how many commands at most
	 * @return the breakdown
	 */
	String top(int count) {
		return top(this.calls, count);
	}

	private String top(Map<String, Long> calls, int count) {
		List<Map.Entry<String, Long>> entries = new ArrayList<>(calls.entrySet());
		entries.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
		StringBuilder text = new StringBuilder();
		for (Map.Entry<String, Long> entry : entries.subList(0, Math.min(count, entries.size()))) {
			if (text.length() > 0) {
				text.append(", ");
			}
			text.append(entry.getKey()).append(' ').append(format(ratio(entry.getValue())));
		}
		return text.toString();
	}

	/**
	 * Returns a one-line report (the 24 commands with the most calls), e.g.
	 * {@code redis commands per item (ours, 20000 items): 5.00 in all; evalsha 2.00, ...},
	 * the commands that failed (an error reply, or rejected) at the end if any did.
	 * @param what what was measured
	 * @return the line
	 */
	String line(String what) {
		String line = "redis commands per item (" + what + ", " + this.items + " items): " + format(perItem())
				+ " in all; " + top(24);
		return this.failed.isEmpty() ? line : line + "; failed: " + top(this.failed, 4);
	}

	private double ratio(long calls) {
		return (this.items == 0) ? Double.NaN : (double) calls / this.items;
	}

	private static String format(double value) {
		return String.format(Locale.ROOT, "%.2f", value);
	}

	private static void add(Map<String, Long> totals, Map<String, Long> before, Map<String, Long> after) {
		for (Map.Entry<String, Long> entry : after.entrySet()) {
			long delta = entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
			if (delta > 0) {
				totals.merge(entry.getKey(), delta, Long::sum);
			}
		}
	}

	/**
	 * Reads {@code INFO commandstats}.
	 * @param admin the connection
	 * @param failed where to put each command's failed and rejected calls (Redis 6.2 and
	 * later)
	 * @return each command's calls
	 */
	private static Map<String, Long> snapshot(RedisAdmin admin, Map<String, Long> failed) {
		Map<String, Long> calls = new HashMap<>();
		for (Map.Entry<String, String> entry : admin.info("commandstats").entrySet()) {
			String stats = entry.getValue();
			String name = entry.getKey().startsWith(PREFIX) ? entry.getKey().substring(PREFIX.length())
					: entry.getKey();
			calls.put(name, field(stats, "calls"));
			failed.put(name, field(stats, "failed_calls") + field(stats, "rejected_calls"));
		}
		return calls;
	}

	/**
	 * Returns one {@code name=value} field of a commandstats line, 0 if it has none.
	 */
	private static long field(String stats, String name) {
		String prefix = name + "=";
		int start = stats.startsWith(prefix) ? 0 : stats.indexOf("," + prefix);
		if (start < 0) {
			return 0;
		}
		start += stats.startsWith(prefix) ? prefix.length() : prefix.length() + 1;
		int end = stats.indexOf(',', start);
		return Long.parseLong(stats.substring(start, (end < 0) ? stats.length() : end));
	}

}
