package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.CallGroup;

/**
 * The adds of a plain queue's handle, grouped: concurrent adds from many threads share
 * one add script, so one round trip ({@link CallGroup}). The first add finds no script
 * under way and sends its own at once; the adds that come while it runs wait for its
 * answer and go together in the next, and each returns only once the script that holds
 * its item has answered. A lone add costs what it did before.
 * <p>
 * The add script takes client-go's rules item by item in the order given, so a batch that
 * holds an item twice queues it once, and an item being processed is marked dirty. Adds
 * with a trace context share a script with the adds of the same context only (the traced
 * add script takes one context for its items): a batch sends one script per context, all
 * before the first answer is awaited, so it is still one round trip.
 * <p>
 * A failed script fails the adds it held, each caller with an exception of its own.
 * <p>
 * Thread-safe: an add's outcome is written by the leader of its batch and read by its
 * caller after {@link CallGroup#join} returns, which orders them.
 */
final class GroupedAdds {

	/** An add and, once its script answered, whether it was written or its failure. */
	private static final class Add {

		final String encoded;

		final String context;

		boolean written;

		RedisQueueException failure;

		Add(String encoded, String context) {
			this.encoded = encoded;
			this.context = context;
		}

	}

	private final QueueScripts scripts;

	/** The queue's hook, guarded. */
	private final WorkQueueMetrics metrics;

	private final CallGroup<Add> group = new CallGroup<>(QueueLayout.ADD_BATCH, this::write);

	GroupedAdds(QueueScripts scripts, WorkQueueMetrics metrics) {
		this.scripts = scripts;
		this.metrics = metrics;
	}

	/**
	 * Adds an item, and returns once the script that holds it has answered.
	 * @param encoded the item
	 * @param context the add's trace context, {@code null} for none
	 * @throws RedisQueueException if that script failed
	 */
	void add(String encoded, String context) {
		Add add = new Add(encoded, context);
		this.group.join(List.of(add));
		RedisQueueException failure = add.failure;
		if (failure != null) {
			throw new RedisQueueException(failure.reason(), failure.getMessage(), failure.getCause());
		}
	}

	/**
	 * Writes a batch: one script per trace context (at most {@link QueueLayout#ADD_BATCH}
	 * items, the group's bound), all sent before the first answer is awaited.
	 */
	private void write(List<Add> batch) {
		try {
			send(batch);
		}
		catch (RuntimeException ex) {
			// The client refused to send, say: the group tells only the leader of a
			// writer's exception, so every add without an outcome fails here; none may
			// return as written when it was not.
			RedisQueueException failure = this.scripts.failure(ex);
			for (Add add : batch) {
				if (!add.written && add.failure == null) {
					add.failure = failure;
				}
			}
		}
	}

	private void send(List<Add> batch) {
		Map<String, List<Add>> byContext = new LinkedHashMap<>();
		for (Add add : batch) {
			byContext.computeIfAbsent(add.context, (context) -> new ArrayList<>()).add(add);
		}
		QueueLayout layout = this.scripts.layout();
		List<CompletableFuture<Long>> answers = new ArrayList<>(byContext.size());
		for (Map.Entry<String, List<Add>> adds : byContext.entrySet()) {
			List<String> encoded = new ArrayList<>(adds.getValue().size());
			for (Add add : adds.getValue()) {
				encoded.add(add.encoded);
			}
			List<String[]> args = layout.addAllArgs(encoded, adds.getKey());
			// One script: the group takes at most ADD_BATCH adds.
			answers.add(this.scripts.send(layout.add(adds.getKey()), args.get(0)));
		}
		int i = 0;
		for (List<Add> adds : byContext.values()) {
			try {
				long added = layout.added(this.scripts.answer(answers.get(i++)));
				adds.forEach((add) -> add.written = true);
				for (long n = 0; n < added; n++) {
					this.metrics.added();
				}
			}
			catch (RedisQueueException ex) {
				adds.forEach((add) -> add.failure = ex);
			}
		}
	}

}
