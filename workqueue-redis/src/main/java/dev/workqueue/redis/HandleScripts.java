package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.store.CallGroup;
import dev.workqueue.store.CallerLinger;
import dev.workqueue.store.InspectionDriver;
import dev.workqueue.store.QueueDriver;
import dev.workqueue.time.Nanos;

/**
 * The adds and reads of a Redis queue handle, each one script of the queue's layout:
 * core's {@link QueueDriver} over Redis, for the handle ({@link RedisWorkQueue}).
 * <p>
 * <b>Layouts.</b> The ready items are a LIST or a priority-ordered ZSET: the
 * {@link QueueLayout} picks the scripts that change them and shapes their arguments and
 * replies. The plain layout drops the priorities it is given.
 * <p>
 * <b>Adds.</b> Concurrent adds and add-afters of a plain queue share one add script and
 * one add-after script, sent together ({@link CallGroup}, {@link GroupedAdds}); a
 * priority queue's go one script each. Each returns once its own item is written. An
 * {@code addAll} sends every script before it awaits the first answer.
 * <p>
 * Thread-safe: it keeps no state of its own beyond its parts.
 */
final class HandleScripts implements QueueDriver {

	private final QueueScripts scripts;

	/** The adds and add-afters, grouped across the handle's threads. */
	private final CallGroup<GroupedAdds.Add, Long> adds;

	/** The group's writer, which also writes the adds that are not grouped. */
	private final GroupedAdds writer;

	/** Woken at shutdown. */
	private final QueueTimer timer;

	private final String description;

	private final RedisInspection inspection;

	HandleScripts(String name, QueueScripts scripts, GroupedAdds writer, QueueTimer timer, RedisInspection inspection) {
		this.scripts = scripts;
		this.writer = writer;
		this.adds = new CallGroup<>(QueueLayout.ADD_BATCH, writer, new CallerLinger());
		this.timer = timer;
		this.inspection = inspection;
		this.description = "RedisWorkQueue[" + name + " at " + scripts.keys().queue() + "]";
	}

	@Override
	public long add(String encoded, int priority, String context) {
		return write(GroupedAdds.Add.ready(encoded, priority, context));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The layout says how many items each script takes ({@link QueueLayout#addAllArgs}).
	 * Each script is atomic, and one that fails writes nothing; when the items went in
	 * several scripts and some failed, the exception (the first failure's reason) says
	 * how many items those held: the others were added.
	 */
	@Override
	public void addAll(List<String> encoded, String context, LongConsumer counted) {
		QueueLayout layout = this.scripts.layout();
		List<CompletableFuture<Long>> answers = new ArrayList<>();
		List<String[]> scripts = layout.addAllArgs(encoded, context);
		for (String[] args : scripts) {
			answers.add(this.scripts.send(layout.add(context), args));
		}
		long added = 0;
		int notAdded = 0;
		RedisQueueException failure = null;
		for (int i = 0; i < answers.size(); i++) {
			try {
				added += this.scripts.<Long>answer(answers.get(i));
			}
			catch (RedisQueueException ex) {
				failure = (failure != null) ? failure : ex;
				notAdded += layout.itemsIn(scripts.get(i), context);
			}
		}
		counted.accept(added);
		if (failure != null && scripts.size() > 1) {
			throw new RedisQueueException(failure.reason(),
					failure.getMessage() + "; " + notAdded + " of the " + encoded.size()
							+ " items were in the scripts that failed, which wrote nothing, and the others were added",
					failure.getCause());
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The due time is read now, and the script is given what is left of the delay when it
	 * is sent (later, when it waits for its group).
	 */
	@Override
	public void addAfter(String encoded, int priority, long delayNanos, String context) {
		write(GroupedAdds.Add.after(encoded, priority, context, Nanos.add(this.scripts.now(), delayNanos)));
	}

	/** Writes an add with the handle's other adds, or alone where the layout says so. */
	private long write(GroupedAdds.Add add) {
		return this.scripts.layout().groupsAdds() ? this.adds.call(add) : this.writer.writeOne(add);
	}

	/** {@inheritDoc} The stats script. */
	@Override
	public int size() {
		return (int) (long) stats().get(0);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The stats script; the time the item next in line has been queued only in the
	 * priority layout.
	 */
	@Override
	public Figures figures() {
		List<Long> shared = stats();
		int ready = (int) (long) shared.get(0);
		int dirty = (int) (long) shared.get(1);
		return new Figures(ready, (int) (long) shared.get(2), (int) (long) shared.get(3), dirty - ready,
				this.scripts.layout().oldestReadyNanos(shared));
	}

	private List<Long> stats() {
		return this.scripts.run(this.scripts.layout().stats);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * O(log n) per priority with ready items, in the priority layout. An item raised into
	 * a level lines up at its back, so an older item raised there later does not count.
	 */
	@Override
	public List<Level> readyLevels() {
		List<Long> flat = this.scripts.run(LuaScript.PLEVELS);
		List<Level> levels = new ArrayList<>(flat.size() / 3);
		for (int i = 0; i + 2 < flat.size(); i += 3) {
			levels.add(new Level((int) (long) flat.get(i), (int) (long) flat.get(i + 1), flat.get(i + 2) * 1000));
		}
		return levels;
	}

	@Override
	public InspectionDriver inspection() {
		return this.inspection;
	}

	@Override
	public String server() {
		return this.scripts.link().server();
	}

	/**
	 * From now on, sends on the handle's link count themselves, so that it is given back
	 * only after their answers.
	 */
	@Override
	public void beforeShutDown() {
		this.scripts.counting();
	}

	/** Wakes the timed work: a shut-down handle holding nothing ends it. */
	@Override
	public void afterShutDown() {
		this.timer.wake();
	}

	/** {@inheritDoc} Redis's own failure: a script either ran whole or not at all. */
	@Override
	public boolean ignorableAtShutDown(RuntimeException failure) {
		return failure instanceof RedisQueueException;
	}

	@Override
	public String description() {
		return this.description;
	}

	/** The timed work, for tests. */
	QueueTimer timer() {
		return this.timer;
	}

}
