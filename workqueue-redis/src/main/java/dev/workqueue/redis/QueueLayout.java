package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.List;

import dev.workqueue.spi.ItemTrace;

/**
 * How a queue keeps its ready items, and so which scripts change them and how their
 * arguments and replies are shaped: the seam between the plain queue and the priority
 * queue, which share everything else (leases, fencing, parking, orphans, wake-ups,
 * shutdown). The scripts of one operation take the same arguments in both layouts, except
 * that the priority layout's add, add-after, get and done-get take one more (the
 * priority, the starvation timeout), and its get replies with each item's priority after
 * the plain reply's item and queued time. The plain layout drops the priority it is
 * given: its items have none.
 */
enum QueueLayout {

	/** Client-go's FIFO: a LIST (the {@code queue} key). */
	LIST("list", false, LuaScript.ADD, LuaScript.ADD_TRACED, LuaScript.ADD_AFTER, LuaScript.GET, LuaScript.DONE,
			LuaScript.DONE_GET, LuaScript.RELEASE, LuaScript.TICK, LuaScript.STATS, 16),

	/**
	 * Highest priority first, FIFO within a priority: a ZSET (the {@code ready} key) and
	 * its companions, see {@code includes/queue_keys.lua}.
	 */
	PRIORITY("priority", true, LuaScript.PADD, LuaScript.PADD, LuaScript.PADD_AFTER, LuaScript.PGET, LuaScript.PDONE,
			LuaScript.PDONE_GET, LuaScript.PRELEASE, LuaScript.PTICK, LuaScript.PSTATS, 2);

	/** The most adds one add or add-after script takes (the group's bound). */
	static final int ADD_BATCH = 1_000;

	/**
	 * The most leases one done or done-get script ends: the scripts unpack a value per
	 * lease (the priority layout two), and Redis's Lua unpacks some 8000 at most. The
	 * engine sends far fewer (64 a group); more go in scripts of their own.
	 */
	static final int DONE_BATCH = 1_000;

	/** The layout's name, as {@code check_types.lua} takes it. */
	final String id;

	/** Whether the items have priorities: the scripts take and reply with them. */
	private final boolean prioritized;

	final LuaScript add;

	/**
	 * The add of an add made with a trace context: the plain layout's takes the context
	 * before its items; the priority layout's add takes it last, when given.
	 */
	final LuaScript addTraced;

	final LuaScript addAfter;

	final LuaScript get;

	final LuaScript done;

	/** Dones (of many leases) and the next get in one script. */
	final LuaScript doneGet;

	final LuaScript release;

	final LuaScript tick;

	final LuaScript stats;

	/**
	 * The most items one get leases, for the consumers of a handle that are waiting: few
	 * in the priority layout, so that an item of a higher priority added meanwhile never
	 * waits behind many leased already.
	 */
	final int maxLeases;

	QueueLayout(String id, boolean prioritized, LuaScript add, LuaScript addTraced, LuaScript addAfter, LuaScript get,
			LuaScript done, LuaScript doneGet, LuaScript release, LuaScript tick, LuaScript stats, int maxLeases) {
		this.id = id;
		this.prioritized = prioritized;
		this.add = add;
		this.addTraced = addTraced;
		this.addAfter = addAfter;
		this.get = get;
		this.done = done;
		this.doneGet = doneGet;
		this.release = release;
		this.tick = tick;
		this.stats = stats;
		this.maxLeases = maxLeases;
	}

	/**
	 * The add script of an add.
	 * @param context the add's trace context, {@code null} for none
	 * @return {@link #add}, or {@link #addTraced} with a context
	 */
	LuaScript add(String context) {
		return (context != null) ? this.addTraced : this.add;
	}

	/**
	 * The arguments of an add script ({@link #add(String)}'s) that adds {@code adds} (at
	 * most {@link #ADD_BATCH}), in the order given: the plain layout's take the context
	 * first, then the items; the priority layout's an item and its priority per add, then
	 * the context. Without a trace context they are what they were before contexts were
	 * carried, so that an application without a tracer sends not a byte more.
	 * @param adds the adds, all with the trace context {@code context}
	 * @param context their trace context, {@code null} for none
	 * @return the arguments after the time and the channel
	 */
	String[] addArgs(List<GroupedAdds.Add> adds, String context) {
		String[] args = new String[(this.prioritized ? 2 : 1) * adds.size() + ((context != null) ? 1 : 0)];
		int at = 0;
		if (context != null && !this.prioritized) {
			args[at++] = context;
		}
		for (GroupedAdds.Add add : adds) {
			args[at++] = add.encoded();
			if (this.prioritized) {
				args[at++] = Integer.toString(add.priority());
			}
		}
		if (context != null && this.prioritized) {
			args[at] = context;
		}
		return args;
	}

	/**
	 * Whether concurrent adds and add-afters share scripts ({@link GroupedAdds}): the
	 * plain layout's; the priority layout's add does several times the work per item, so
	 * its adds do better pipelined one script each than waiting for one another (see
	 * {@link GroupedAdds}).
	 * @return whether adds are grouped
	 */
	boolean groupsAdds() {
		return !this.prioritized;
	}

	/**
	 * The arguments of an add-after script that puts {@code adds} in the waiting set, in
	 * the order given: a delay and an item per add, then the context, when given. The
	 * plain layout's takes up to {@link #ADD_BATCH} adds; the priority layout's one, with
	 * its priority after the item.
	 * @param adds the adds, all with the trace context {@code context}
	 * @param nowNanos the reading the script is given (0 on the server's clock)
	 * @param context their trace context, {@code null} for none
	 * @return the arguments after the time and the channel
	 */
	String[] addAfterArgs(List<GroupedAdds.Add> adds, long nowNanos, String context) {
		int each = this.prioritized ? 3 : 2;
		String[] args = new String[each * adds.size() + ((context != null) ? 1 : 0)];
		int at = 0;
		for (GroupedAdds.Add add : adds) {
			args[at++] = Long.toString(add.delayMicros(nowNanos));
			args[at++] = add.encoded();
			if (this.prioritized) {
				args[at++] = Integer.toString(add.priority());
			}
		}
		if (context != null) {
			args[at] = context;
		}
		return args;
	}

	/**
	 * The arguments of the add scripts ({@link #add(String)}'s) that add many items at
	 * priority 0, one array per script of up to {@value #ADD_BATCH} items (sent all
	 * before the first answer is awaited, so that the connection pipelines them).
	 * @param encoded the items
	 * @param context the adds' trace context, {@code null} for none
	 * @return the arguments of each script
	 */
	List<String[]> addAllArgs(List<String> encoded, String context) {
		List<String[]> scripts = new ArrayList<>();
		for (int from = 0; from < encoded.size(); from += ADD_BATCH) {
			List<GroupedAdds.Add> batch = new ArrayList<>();
			for (String one : encoded.subList(from, Math.min(encoded.size(), from + ADD_BATCH))) {
				batch.add(GroupedAdds.Add.ready(one, 0, context));
			}
			scripts.add(addArgs(batch, context));
		}
		return scripts;
	}

	/**
	 * How many items one of the add scripts of {@link #addAllArgs} holds.
	 * @param args its arguments
	 * @param context the adds' trace context, {@code null} for none
	 * @return how many items
	 */
	int itemsIn(String[] args, String context) {
		return (args.length - ((context != null) ? 1 : 0)) / (this.prioritized ? 2 : 1);
	}

	/**
	 * The arguments of a get script, or of a done-get script when {@code dones} are
	 * given: the get's, then an item and token pair per lease done.
	 * @param dones the leases the script ends first, possibly none
	 * @param leaseMicros the lease, in µs
	 * @param token the get's token
	 * @param count how many items to lease at most
	 * @param starvationMicros the starvation timeout in µs, {@code "-1"} for none
	 * @return the arguments after the time and the channel
	 */
	String[] getArgs(List<RedisLease> dones, String leaseMicros, String token, int count, String starvationMicros) {
		int first = this.prioritized ? 4 : 3;
		String[] args = new String[first + 2 * dones.size()];
		args[0] = leaseMicros;
		args[1] = token;
		args[2] = Integer.toString(count);
		if (this.prioritized) {
			args[3] = starvationMicros;
		}
		doneArgs(dones, args, first);
		return args;
	}

	/**
	 * The arguments of a done script: an item and token pair per lease.
	 * @param leases the leases, at least one
	 * @return the arguments after the time and the channel
	 */
	static String[] doneArgs(List<RedisLease> leases) {
		return doneArgs(leases, new String[2 * leases.size()], 0);
	}

	private static String[] doneArgs(List<RedisLease> leases, String[] args, int from) {
		int at = from;
		for (RedisLease lease : leases) {
			args[at++] = lease.encoded();
			args[at++] = lease.token();
		}
		return args;
	}

	/** How many values each leased item takes in a get's reply. */
	int replyGroup() {
		return this.prioritized ? 4 : 3;
	}

	/**
	 * The trace contexts of a leased item in a get's reply (the record that
	 * {@code includes/trace_add.lua} keeps: the parent, then a line per link).
	 * @param reply the reply
	 * @param at where the item's values start
	 * @return its contexts, or {@code null} if it has none
	 */
	ItemTrace trace(List<Object> reply, int at) {
		Object record = reply.get(at + (this.prioritized ? 3 : 2));
		return (record instanceof String text) ? ItemTrace.fromRecord(text) : null;
	}

	/**
	 * The priority of a leased item in a get's reply.
	 * @param reply the reply
	 * @param at where the item's values start
	 * @return its priority, 0 in the plain layout
	 */
	int priority(List<Object> reply, int at) {
		return this.prioritized ? (int) (long) (Long) reply.get(at + 2) : 0;
	}

	/**
	 * How long the oldest ready item has been ready, from the stats script's reply.
	 * @param stats the reply
	 * @return the time in ns, 0 in the plain layout (which does not tell)
	 */
	long oldestReadyNanos(List<Long> stats) {
		return this.prioritized ? stats.get(5) * 1000 : 0;
	}

}
