package dev.workqueue.redis;

/**
 * How a queue keeps its ready items, and so which scripts change them: the seam between
 * the plain queue and the priority queue, which share everything else (leases, fencing,
 * parking, orphans, wake-ups, shutdown). The scripts of one operation take the same
 * arguments in both layouts, except that the priority layout's add, add-after, get and
 * done-get take one more (the priority, the starvation timeout), and its get replies with
 * each item's priority after the plain reply's item and queued time.
 */
enum QueueLayout {

	/** Client-go's FIFO: a LIST (the {@code queue} key). */
	LIST("list", LuaScript.ADD, LuaScript.ADD_AFTER, LuaScript.GET, LuaScript.DONE, LuaScript.DONE_GET,
			LuaScript.RELEASE, LuaScript.TICK, LuaScript.STATS, 16),

	/**
	 * Highest priority first, FIFO within a priority: a ZSET (the {@code ready} key) and
	 * its companions, see {@code includes/queue_keys.lua}.
	 */
	PRIORITY("priority", LuaScript.PADD, LuaScript.PADD_AFTER, LuaScript.PGET, LuaScript.PDONE, LuaScript.PDONE_GET,
			LuaScript.PRELEASE, LuaScript.PTICK, LuaScript.PSTATS, 2);

	/** The layout's name, as {@code check_types.lua} takes it. */
	final String id;

	final LuaScript add;

	final LuaScript addAfter;

	final LuaScript get;

	final LuaScript done;

	/** A worker's done and its next get in one script. */
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

	QueueLayout(String id, LuaScript add, LuaScript addAfter, LuaScript get, LuaScript done, LuaScript doneGet,
			LuaScript release, LuaScript tick, LuaScript stats, int maxLeases) {
		this.id = id;
		this.add = add;
		this.addAfter = addAfter;
		this.get = get;
		this.done = done;
		this.doneGet = doneGet;
		this.release = release;
		this.tick = tick;
		this.stats = stats;
		this.maxLeases = maxLeases;
	}

	/** How many values each leased item takes in a get's reply. */
	int replyGroup() {
		return (this == PRIORITY) ? 3 : 2;
	}

}
