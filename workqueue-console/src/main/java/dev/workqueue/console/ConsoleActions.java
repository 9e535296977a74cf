package dev.workqueue.console;

import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.spring.WorkQueueOperations;
import dev.workqueue.spring.worker.WorkerSettings;

/**
 * Runs the console's actions on a queue: {@code pause} and {@code resume} (the whole
 * queue, on every instance), {@code concurrency} (this instance's workers), {@code add},
 * and {@code readd}, {@code delete} and {@code forget} of one item named by its text or
 * its id. Each action is logged at INFO with who asked; the item's text only when items
 * are shown.
 * <p>
 * Thread-safe: it keeps no state of its own.
 */
final class ConsoleActions {

	/** The actions, as they are named in the path. */
	static final List<String> NAMES = List.of("pause", "resume", "concurrency", "add", "readd", "delete", "forget");

	/** How deep an id is looked for in each list of items. */
	static final int ID_SEARCH_DEPTH = QueueInspector.MAX_LIMIT;

	private static final Log logger = LogFactory.getLog(ConsoleActions.class);

	private static final int LOGGED_TEXT_LENGTH = 200;

	/**
	 * Where an id is looked for: the given-up records first, the one place it is sure to
	 * matter.
	 */
	private static final List<ItemState> ID_SEARCH_ORDER = List.of(ItemState.GIVEN_UP, ItemState.READY,
			ItemState.PROCESSING, ItemState.WAITING);

	private final @Nullable WorkQueueOperations operations;

	private final ItemIds ids;

	private final boolean showItems;

	ConsoleActions(@Nullable WorkQueueOperations operations, ItemIds ids, boolean showItems) {
		this.operations = operations;
		this.ids = ids;
		this.showItems = showItems;
	}

	/**
	 * Runs an action on a queue.
	 * @param queue the queue
	 * @param action one of {@link #NAMES}
	 * @param body the request's JSON body, empty if none
	 * @param principal who asks, {@code null} if unknown
	 * @throws ConsoleRequestException for an unknown action (404) or a bad value (400)
	 */
	void run(RateLimitingQueue<Object> queue, String action, Map<String, Object> body, @Nullable Principal principal) {
		String name = queue.name();
		String caller = (principal != null) ? "'" + principal.getName() + "'" : "an unauthenticated caller";
		switch (action) {
			case "pause" -> {
				inspector(queue).pause();
				logger.info(LogMessage.format("Console: queue '%s' paused by %s", name, caller));
			}
			case "resume" -> {
				inspector(queue).resume();
				logger.info(LogMessage.format("Console: queue '%s' resumed by %s", name, caller));
			}
			case "concurrency" -> {
				int concurrency = concurrency(body);
				setConcurrency(name, concurrency);
				logger.info(LogMessage.format("Console: concurrency of queue '%s' set to %d by %s", name, concurrency,
						caller));
			}
			case "add" -> {
				QueueInspector inspector = inspector(queue);
				if (!inspector.readsText()) {
					throw ConsoleRequestException.badRequest("Queue '" + name
							+ "' cannot turn text into an item (it has no codec): add its items from the application");
				}
				String text = string(body, "item");
				queue.add(decode(() -> inspector.item(text)).orElseThrow(
						() -> ConsoleRequestException.badRequest("item cannot be read by queue '" + name + "'")));
				logger.info(LogMessage.format("Console: %s added to queue '%s' by %s", logged(text), name, caller));
			}
			case "readd" -> {
				QueueInspector inspector = inspector(queue);
				String text = text(inspector, body);
				Object item = decode(() -> inspector.takeGivenUp(text)).orElseThrow(() -> ConsoleRequestException
					.badRequest("Queue '" + name + "' keeps no given-up item " + logged(text)));
				forget(queue, item);
				queue.add(item);
				logger.info(LogMessage.format("Console: given-up %s added again to queue '%s' by %s", logged(text),
						name, caller));
			}
			case "delete" -> {
				QueueInspector inspector = inspector(queue);
				String text = text(inspector, body);
				if (!inspector.deleteGivenUp(text)) {
					throw ConsoleRequestException
						.badRequest("Queue '" + name + "' keeps no given-up item " + logged(text));
				}
				logger.info(LogMessage.format("Console: given-up %s deleted from queue '%s' by %s", logged(text), name,
						caller));
			}
			case "forget" -> {
				QueueInspector inspector = inspector(queue);
				String text = text(inspector, body);
				Object item = decode(() -> inspector.item(text)).orElseThrow(
						() -> ConsoleRequestException.badRequest("Queue '" + name + "' has no item " + logged(text)));
				forget(queue, item);
				logger.info(LogMessage.format("Console: history of %s in queue '%s' forgotten by %s", logged(text),
						name, caller));
			}
			default -> throw ConsoleRequestException
				.notFound("No action '" + action + "': the actions are " + String.join(", ", NAMES));
		}
	}

	private static QueueInspector inspector(RateLimitingQueue<Object> queue) {
		return queue.capability(QueueInspector.class)
			.orElseThrow(() -> ConsoleRequestException
				.badRequest("Queue '" + queue.name() + "' cannot be looked into: it has no QueueInspector"));
	}

	/**
	 * Forgets an item's history: its backoff, and its failures counted by the workers.
	 */
	private void forget(RateLimitingQueue<Object> queue, Object item) {
		if (this.operations != null) {
			this.operations.forget(queue.name(), item);
		}
		else {
			queue.forget(item);
		}
	}

	private void setConcurrency(String name, int concurrency) {
		if (this.operations == null) {
			throw ConsoleRequestException.badRequest("No worker serves queue '" + name + "'");
		}
		try {
			this.operations.setConcurrency(name, concurrency);
		}
		catch (IllegalArgumentException ex) {
			throw ConsoleRequestException.badRequest(ex.getMessage());
		}
	}

	private static int concurrency(Map<String, Object> body) {
		Object value = body.get("concurrency");
		if (value instanceof Integer concurrency && concurrency >= 1 && concurrency <= WorkerSettings.MAX_CONCURRENCY) {
			return concurrency;
		}
		throw ConsoleRequestException.badRequest("concurrency must be a whole number from 1 to "
				+ WorkerSettings.MAX_CONCURRENCY + ", was " + ((value != null) ? value : "missing"));
	}

	/** The text of the item a body names, by {@code item} (its text) or {@code id}. */
	private String text(QueueInspector inspector, Map<String, Object> body) {
		boolean byText = body.containsKey("item");
		boolean byId = body.containsKey("id");
		if (byText == byId) {
			throw ConsoleRequestException.badRequest("Give the item as one of item (its text) or id");
		}
		if (byText) {
			return string(body, "item");
		}
		String id = string(body, "id");
		for (ItemState state : ID_SEARCH_ORDER) {
			for (ItemView item : inspector.items(state, 0, ID_SEARCH_DEPTH)) {
				if (this.ids.id(item.text()).equals(id)) {
					return item.text();
				}
			}
		}
		throw ConsoleRequestException
			.badRequest("id '" + id + "' names no item among the given-up records and the first " + ID_SEARCH_DEPTH
					+ " items of each state");
	}

	private static String string(Map<String, Object> body, String key) {
		if (body.get(key) instanceof String value && !value.isEmpty()) {
			return value;
		}
		throw ConsoleRequestException.badRequest(key + " must be a non-empty string");
	}

	/** Looks an item up; a text the queue cannot read is a bad value. */
	private static Optional<Object> decode(Supplier<Optional<Object>> lookup) {
		try {
			return lookup.get();
		}
		catch (IllegalArgumentException ex) {
			throw ConsoleRequestException.badRequest(ex.getMessage());
		}
	}

	/** An item as the log names it: its text only when items are shown. */
	private String logged(String text) {
		if (!this.showItems) {
			return "item id " + this.ids.id(text);
		}
		String cut = (text.length() > LOGGED_TEXT_LENGTH) ? text.substring(0, LOGGED_TEXT_LENGTH) + "..." : text;
		StringBuilder escaped = new StringBuilder("item '");
		cut.codePoints()
			.forEach((c) -> escaped
				.append(Character.isISOControl(c) ? String.format("\\u%04x", c) : new String(Character.toChars(c))));
		return escaped.append("'").toString();
	}

}
