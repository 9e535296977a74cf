package dev.workqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.store.EpochMicros;
import dev.workqueue.store.InspectionDriver;
import dev.workqueue.time.Nanos;

/**
 * An operator's look into a Redis queue: core's {@link InspectionDriver}, each method one
 * script of the queue ({@code items}, {@code find}, {@code keep_given_up},
 * {@code delete_given_up}, {@code given_up_count}, {@code pause}, {@code paused}).
 * <p>
 * Times are µs on the scripts' clock, which is the server's time, or the builder's clock
 * anchored on it ({@link ClockAnchor}): read as wall-clock instants. A processing item's
 * {@code at} is when its current lease was granted (kept with its token in
 * {@link QueueKeys#leases()}), which a renewal leaves; a lease granted by the previous
 * release, which kept no such time, reads as when it last started (its expiry minus this
 * handle's lease). What Redis keeps does not tell whether an item was claimed ahead:
 * {@code ahead} is always {@code false}. An item's attempts are the shared count behind
 * {@code max-retries} (0 where nothing counted one). The given-up records are kept for
 * the builder's {@link GivenUpBound} (a bound of 0 records writes none) and keep no
 * priority (0).
 * <p>
 * Thread-safe: it keeps no state of its own.
 */
final class RedisInspection implements InspectionDriver {

	/** How many values a script gives per item ({@code includes/item_views.lua}). */
	private static final int VIEW_GROUP = 7;

	private final QueueScripts scripts;

	private final String holder;

	private final GivenUpBound bound;

	private final String leaseMicros;

	private final String retentionMicros;

	/**
	 * Creates the look.
	 * @param scripts the queue's scripts
	 * @param holder the handle's id, as its lease tokens start
	 * @param lease the handle's lease
	 * @param bound how many given-up records the queue keeps, and for how long
	 */
	RedisInspection(QueueScripts scripts, String holder, Duration lease, GivenUpBound bound) {
		this.scripts = scripts;
		this.holder = holder;
		this.bound = bound;
		this.leaseMicros = Long.toString(Nanos.of(lease) / 1000);
		this.retentionMicros = retentionMicros(bound);
	}

	/**
	 * The script arguments of the given-up bound: the most records, the retention in µs.
	 * @param bound the bound
	 * @return the two arguments
	 */
	static String[] boundArgs(GivenUpBound bound) {
		return new String[] { Integer.toString(bound.keep()), retentionMicros(bound) };
	}

	private static String retentionMicros(GivenUpBound bound) {
		return Long.toString(Nanos.of(bound.retention()) / 1000);
	}

	/**
	 * Moves the dead letters of the previous release into the given-up records, within
	 * the bound, and deletes its list ({@code move_dead_letters.lua}): once per handle,
	 * at its start.
	 * @return how many records were moved
	 * @throws RedisQueueException if the script fails
	 */
	int moveDeadLetters() {
		String[] bound = boundArgs(this.bound);
		return (int) (long) this.scripts.<Long>run(LuaScript.MOVE_DEAD_LETTERS, bound[0], bound[1]);
	}

	@Override
	public String backend() {
		return "redis";
	}

	@Override
	public String instance() {
		return this.holder;
	}

	@Override
	public List<ItemView> items(ItemState state, int offset, int limit) {
		List<Object> reply = this.scripts.run(LuaScript.ITEMS, state.label(), Integer.toString(offset),
				Integer.toString(limit), this.scripts.layout().id, this.leaseMicros, this.retentionMicros);
		List<ItemView> views = new ArrayList<>(reply.size() / VIEW_GROUP);
		for (int at = 0; at + VIEW_GROUP <= reply.size(); at += VIEW_GROUP) {
			views.add(view(state, reply, at));
		}
		return views;
	}

	@Override
	public List<ItemView> find(String encoded) {
		List<Object> reply = this.scripts.run(LuaScript.FIND, encoded, this.scripts.layout().id, this.leaseMicros,
				this.retentionMicros);
		List<ItemView> views = new ArrayList<>(4);
		for (int at = 0; at + 1 + VIEW_GROUP <= reply.size(); at += 1 + VIEW_GROUP) {
			views.add(view(ItemState.ofLabel((String) reply.get(at)), reply, at + 1));
		}
		return views;
	}

	/** One item's values of a script's reply ({@code includes/item_views.lua}). */
	private static ItemView view(ItemState state, List<Object> reply, int at) {
		String holder = (String) reply.get(at + 3);
		long leftMicros = (Long) reply.get(at + 4);
		String reason = (String) reply.get(at + 6);
		return new ItemView((String) reply.get(at), state, (int) (long) (Long) reply.get(at + 1),
				EpochMicros.instant((Long) reply.get(at + 2)), holder.isEmpty() ? null : holder,
				(leftMicros >= 0) ? Duration.ofNanos(leftMicros * 1000) : null, false,
				(int) (long) (Long) reply.get(at + 5), (state == ItemState.GIVEN_UP) ? reason : null);
	}

	@Override
	public int givenUpCount() {
		return (int) (long) this.scripts.<Long>run(LuaScript.GIVEN_UP_COUNT, this.retentionMicros);
	}

	/** {@inheritDoc} Nothing sent when the bound keeps no record. */
	@Override
	public void keepGivenUp(String encoded, int attempts, String reason) {
		if (this.bound.keep() == 0) {
			return;
		}
		String[] bound = boundArgs(this.bound);
		this.scripts.run(LuaScript.KEEP_GIVEN_UP, encoded, Integer.toString(attempts), reason, this.holder, bound[0],
				bound[1]);
	}

	@Override
	public boolean deleteGivenUp(String encoded, Instant givenUpAt) {
		String seen = (givenUpAt != null) ? Long.toString(EpochMicros.of(givenUpAt)) : "";
		return this.scripts.<Long>run(LuaScript.DELETE_GIVEN_UP, encoded, this.retentionMicros, seen) == 1;
	}

	@Override
	public void pause(boolean paused) {
		this.scripts.run(LuaScript.PAUSE, paused ? "1" : "0");
	}

	@Override
	public boolean paused() {
		return this.scripts.<Long>run(LuaScript.PAUSED) == 1;
	}

}
