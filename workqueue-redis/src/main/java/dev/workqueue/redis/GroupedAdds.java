package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.workqueue.store.BatchWriter;
import dev.workqueue.store.CallGroup;

/**
 * Redis's write of a queue's grouped adds ({@link CallGroup}): a batch of adds and
 * add-afters from many threads of a plain queue goes in one add script and one add-after
 * script, so one round trip. A priority queue's adds and add-afters go one script each
 * ({@link #writeOne}), pipelined on the shared connection: its add does several times the
 * plain add's work per item, so waiting for one another cost four threads adding at once
 * a fifth of their adds per second, more than one script start per item saved
 * ({@code RedisConcurrentAddBenchmark}); its {@code addAll} sends its items many to a
 * script all the same ({@link QueueLayout#addAllArgs}).
 * <p>
 * The scripts take client-go's rules item by item in the order given, so a batch that
 * holds an item twice queues it once, an item being processed is marked dirty, and an
 * item put in the waiting set twice keeps the earlier time. A script takes one trace
 * context for its items, so adds with a context share a script with the adds of the same
 * context and kind only. A batch sends all its scripts before the first answer is
 * awaited, so it is still one round trip; adds made concurrently may go in either order,
 * as they may without the group, and one caller's adds are in the order it made them
 * (each returns once written).
 * <p>
 * <b>Delays.</b> An add-after's due time is read when it is made, on the handle's clock,
 * and each script is given the batch's own reading, so an item waits what is left of its
 * delay then: never less than asked (on the server's clock both readings are 0 and the
 * delay counts from the script's run, as a lone add-after's does).
 * <p>
 * An add's outcome is how many items its script added that this add counts: an add
 * script's whole count goes to the first add it held, so that the callers together count
 * each item once, on their own threads; an add-after counts none. A failed script fails
 * the adds it held.
 * <p>
 * Thread-safe: the group writes one batch at a time, and this class keeps no state of its
 * own beyond the queue's scripts.
 */
final class GroupedAdds implements BatchWriter<GroupedAdds.Add, Long> {

	/**
	 * One add or add-after.
	 *
	 * @param encoded the item
	 * @param priority its priority (dropped by the plain layout)
	 * @param context its trace context, {@code null} for none
	 * @param delayed whether it is an add-after
	 * @param dueNanos an add-after's due time on the scripts' clock: the clock's reading
	 * plus the delay, saturated (the delay alone on the server's clock, whose reading is
	 * 0); 0 for an add
	 */
	record Add(String encoded, int priority, String context, boolean delayed, long dueNanos) {

		/**
		 * An add, ready at once.
		 * @param encoded the item
		 * @param priority its priority
		 * @param context its trace context, {@code null} for none
		 * @return the add
		 */
		static Add ready(String encoded, int priority, String context) {
			return new Add(encoded, priority, context, false, 0);
		}

		/**
		 * An add-after.
		 * @param encoded the item
		 * @param priority its priority
		 * @param context its trace context, {@code null} for none
		 * @param dueNanos its due time, see {@link Add}
		 * @return the add
		 */
		static Add after(String encoded, int priority, String context, long dueNanos) {
			return new Add(encoded, priority, context, true, dueNanos);
		}

		/**
		 * The delay to give a script read at {@code nowNanos}: what is left of this
		 * add-after's delay then, none once it is due, rounded as {@link Delays} does.
		 * @param nowNanos the script's reading
		 * @return the delay in µs
		 */
		long delayMicros(long nowNanos) {
			long left = this.dueNanos - nowNanos;
			if (this.dueNanos < nowNanos) {
				left = 0;
			}
			else if (left < 0) {
				// The difference overflowed: a due time beyond what a long can count.
				left = Long.MAX_VALUE;
			}
			return Delays.micros(nowNanos, left);
		}

	}

	/** What one script of a batch takes: its kind of add and its trace context. */
	private record Kind(boolean delayed, String context) {

	}

	/** The adds of one script, and its answer. */
	private static final class Script {

		final List<Add> adds = new ArrayList<>();

		CompletableFuture<Long> answer;

		/** What the script added and its first add has not counted yet. */
		long added;

		RedisQueueException failure;

	}

	private final QueueScripts scripts;

	GroupedAdds(QueueScripts scripts) {
		this.scripts = scripts;
	}

	/**
	 * Sends one script per kind and trace context (at most {@link QueueLayout#ADD_BATCH}
	 * items, the group's bound), all before the first answer is awaited.
	 */
	@Override
	public void write(Batch<Add, Long> batch) {
		Map<Kind, Script> byKind = new LinkedHashMap<>();
		Script[] scriptOf = new Script[batch.size()];
		for (int i = 0; i < batch.size(); i++) {
			Add add = batch.argument(i);
			scriptOf[i] = byKind.computeIfAbsent(new Kind(add.delayed(), add.context()), (kind) -> new Script());
			scriptOf[i].adds.add(add);
		}
		long nowNanos = this.scripts.now();
		for (Map.Entry<Kind, Script> entry : byKind.entrySet()) {
			entry.getValue().answer = send(entry.getKey(), entry.getValue().adds, nowNanos);
		}
		for (Map.Entry<Kind, Script> entry : byKind.entrySet()) {
			Script script = entry.getValue();
			try {
				script.added = counted(entry.getKey(), this.scripts.answer(script.answer));
			}
			catch (RedisQueueException ex) {
				script.failure = ex;
			}
		}
		for (int i = 0; i < batch.size(); i++) {
			Script script = scriptOf[i];
			if (script.failure != null) {
				batch.failed(i, script.failure);
			}
			else {
				batch.written(i, script.added);
				script.added = 0;
			}
		}
	}

	/**
	 * Writes one add in a script of its own, outside any group.
	 * @param add the add
	 * @return how many items it added
	 * @throws RedisQueueException if the script failed
	 */
	long writeOne(Add add) {
		Kind kind = new Kind(add.delayed(), add.context());
		return counted(kind, this.scripts.answer(send(kind, List.of(add), this.scripts.now())));
	}

	private CompletableFuture<Long> send(Kind kind, List<Add> adds, long nowNanos) {
		QueueLayout layout = this.scripts.layout();
		return kind.delayed()
				? this.scripts.sendAt(nowNanos, layout.addAfter, layout.addAfterArgs(adds, nowNanos, kind.context()))
				: this.scripts.sendAt(nowNanos, layout.add(kind.context()), layout.addArgs(adds, kind.context()));
	}

	/** How many items a script's answer says it added: none for an add-after. */
	private static long counted(Kind kind, long answer) {
		return kind.delayed() ? 0 : answer;
	}

	@Override
	public RuntimeException failure(Throwable cause) {
		RedisQueueException failure = (cause instanceof RedisQueueException known) ? known
				: this.scripts.failure(cause);
		return new RedisQueueException(failure.reason(), failure.getMessage(), failure.getCause());
	}

}
