package dev.workqueue.redis;

/**
 * How a queue keeps its ready items, and so which scripts change them: the seam between
 * the plain queue and the priority queue, which share everything else (leases, fencing,
 * parking, orphans, wake-ups, shutdown). The scripts of one operation take the same
 * arguments in both layouts, except that the priority layout's add, add-after and get
 * take one more (the priority, the starvation timeout), and its get replies with the
 * priority after the plain reply.
 */
enum QueueLayout {

	/** Client-go's FIFO: a LIST (the {@code queue} key). */
	LIST("list", LuaScript.ADD, LuaScript.ADD_AFTER, LuaScript.GET, LuaScript.DONE, LuaScript.RELEASE, LuaScript.TICK,
			LuaScript.STATS),

	/**
	 * Highest priority first, FIFO within a priority: a ZSET (the {@code ready} key) and
	 * its companions, see {@code prelude.lua}.
	 */
	PRIORITY("priority", LuaScript.PADD, LuaScript.PADD_AFTER, LuaScript.PGET, LuaScript.PDONE, LuaScript.PRELEASE,
			LuaScript.PTICK, LuaScript.PSTATS);

	/** The layout's name, as {@code check_types.lua} takes it. */
	final String id;

	final LuaScript add;

	final LuaScript addAfter;

	final LuaScript get;

	final LuaScript done;

	final LuaScript release;

	final LuaScript tick;

	final LuaScript stats;

	QueueLayout(String id, LuaScript add, LuaScript addAfter, LuaScript get, LuaScript done, LuaScript release,
			LuaScript tick, LuaScript stats) {
		this.id = id;
		this.add = add;
		this.addAfter = addAfter;
		this.get = get;
		this.done = done;
		this.release = release;
		this.tick = tick;
		this.stats = stats;
	}

}
