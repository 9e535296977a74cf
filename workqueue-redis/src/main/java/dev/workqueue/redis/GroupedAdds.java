package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.workqueue.store.BatchWriter;
import dev.workqueue.store.CallGroup;

/**
 * Redis's write of a plain queue's grouped adds ({@link CallGroup}): a batch of adds from
 * many threads goes in one add script, so one round trip.
 * <p>
 * The add script takes client-go's rules item by item in the order given, so a batch that
 * holds an item twice queues it once, and an item being processed is marked dirty. Adds
 * with a trace context share a script with the adds of the same context only (the traced
 * add script takes one context for its items): a batch sends one script per context, all
 * before the first answer is awaited, so it is still one round trip.
 * <p>
 * An add's outcome is how many items its script added that this add counts: a script's
 * whole count goes to the first add it held, so that the callers together count each item
 * once, on their own threads. A failed script fails the adds it held.
 * <p>
 * Thread-safe: the group writes one batch at a time, and this class keeps no state of its
 * own beyond the queue's scripts.
 */
final class GroupedAdds implements BatchWriter<GroupedAdds.Add, Long> {

	/**
	 * One add.
	 *
	 * @param encoded the item
	 * @param context its trace context, {@code null} for none
	 */
	record Add(String encoded, String context) {

	}

	private final QueueScripts scripts;

	GroupedAdds(QueueScripts scripts) {
		this.scripts = scripts;
	}

	/** The script of one trace context's adds, and its answer. */
	private static final class Script {

		final List<String> encoded = new ArrayList<>();

		CompletableFuture<Long> answer;

		/** What the script added and its first add has not counted yet. */
		long added;

		RedisQueueException failure;

	}

	/**
	 * Sends one script per trace context (at most {@link QueueLayout#ADD_BATCH} items,
	 * the group's bound), all before the first answer is awaited.
	 */
	@Override
	public void write(Batch<Add, Long> batch) {
		Map<String, Script> byContext = new LinkedHashMap<>();
		for (int i = 0; i < batch.size(); i++) {
			Add add = batch.argument(i);
			byContext.computeIfAbsent(add.context(), (context) -> new Script()).encoded.add(add.encoded());
		}
		QueueLayout layout = this.scripts.layout();
		for (Map.Entry<String, Script> script : byContext.entrySet()) {
			String context = script.getKey();
			// One script: the group takes at most ADD_BATCH adds.
			script.getValue().answer = this.scripts.send(layout.add(context),
					layout.addAllArgs(script.getValue().encoded, context).get(0));
		}
		for (Script script : byContext.values()) {
			try {
				script.added = layout.added(this.scripts.answer(script.answer));
			}
			catch (RedisQueueException ex) {
				script.failure = ex;
			}
		}
		for (int i = 0; i < batch.size(); i++) {
			Script script = byContext.get(batch.argument(i).context());
			if (script.failure != null) {
				batch.failed(i, script.failure);
			}
			else {
				batch.written(i, script.added);
				script.added = 0;
			}
		}
	}

	@Override
	public RuntimeException failure(Throwable cause) {
		RedisQueueException failure = (cause instanceof RedisQueueException known) ? known
				: this.scripts.failure(cause);
		return new RedisQueueException(failure.reason(), failure.getMessage(), failure.getCause());
	}

}
