package dev.workqueue.console;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.spring.WorkQueueOperations;
import dev.workqueue.spring.worker.ItemLogging;
import dev.workqueue.spring.worker.WorkerSettings;

/**
 * Runs the console's actions on a queue: {@code pause} and {@code resume} (the whole
 * queue, on every instance; resume also resumes this instance's workers),
 * {@code concurrency} (this instance's workers), {@code add}, and {@code readd},
 * {@code delete} and {@code forget} of one item named by its text or its id. Each action
 * is logged at INFO with who asked; the item's text only when items are shown, and
 * likewise in every error it answers.
 * <p>
 * Thread-safe: it keeps no state of its own.
 */
final class ConsoleActions {

	/** The actions, as they are named in the path. */
	static final List<String> NAMES = List.of("pause", "resume", "concurrency", "add", "readd", "delete", "forget");

	private static final Log logger = LogFactory.getLog(ConsoleActions.class);

	private final @Nullable WorkQueueOperations operations;

	private final ItemIds ids;

	private final boolean showItems;

	/** {@code workqueue.log-items}: how a log line names an item the console shows. */
	private final ItemLogging itemLogging;

	ConsoleActions(@Nullable WorkQueueOperations operations, ItemIds ids, boolean showItems, ItemLogging itemLogging) {
		this.operations = operations;
		this.ids = ids;
		this.showItems = showItems;
		this.itemLogging = itemLogging;
	}

	/**
	 * Runs an action on a queue.
	 * @param queue the queue
	 * @param action one of {@link #NAMES}
	 * @param body the request's body, a JSON object; empty if none
	 * @param principal who asks, {@code null} if unknown
	 * @throws ConsoleRequestException for an unknown action (404), a bad value, the
	 * console's or the queue's (an {@code IllegalArgumentException}) (400), or a queue
	 * that failed to do it, as a store out of reach (503)
	 */
	void run(RateLimitingQueue<Object> queue, String action, byte[] body, @Nullable Principal principal) {
		if (!NAMES.contains(action)) {
			throw ConsoleRequestException
				.notFound("No action '" + action + "': the actions are " + String.join(", ", NAMES));
		}
		Map<String, Object> values = values(body);
		String caller = (principal != null) ? "'" + principal.getName() + "'" : "an unauthenticated caller";
		try {
			run(queue, action, values, caller);
		}
		catch (ConsoleRequestException ex) {
			throw ex;
		}
		catch (IllegalArgumentException ex) {
			// The queue's own refusal of the value (text its store cannot keep): the
			// caller's to mend, not a store out of reach.
			throw ConsoleRequestException.refusedValue("queue '" + queue.name() + "' refused " + action, ex,
					this.showItems);
		}
		catch (RuntimeException ex) {
			ConsoleRequestException unavailable = ConsoleRequestException
				.unavailable("cannot run " + action + " on queue '" + queue.name() + "'", ex, this.showItems);
			logger.warn(LogMessage.format("Console: %s (asked by %s)", unavailable.getMessage(), caller));
			throw unavailable;
		}
	}

	private void run(RateLimitingQueue<Object> queue, String action, Map<String, Object> body, String caller) {
		String name = queue.name();
		switch (action) {
			case "pause" -> {
				inspector(queue).pause();
				logger.info(LogMessage.format("Console: queue '%s' paused by %s", name, caller));
			}
			case "resume" -> {
				resume(queue);
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
				if (!addsText(inspector)) {
					throw ConsoleRequestException.badRequest("Queue '" + name
							+ "' cannot turn text into an item (it has no codec): add its items from the application");
				}
				String text = string(body, "item");
				queue.add(inspector.readsText() ? item(inspector, name, text)
					.orElseThrow(() -> ConsoleRequestException.badRequest(unreadable(name, text, null))) : text);
				logger.info(LogMessage.format("Console: %s added to queue '%s' by %s", inLog(text), name, caller));
			}
			case "readd" -> {
				QueueInspector inspector = inspector(queue);
				String text = text(body);
				Optional<ItemView> record = inspector.find(text)
					.stream()
					.filter((item) -> item.state() == ItemState.GIVEN_UP)
					.findFirst();
				Object item = (record.isPresent() ? item(inspector, name, text) : Optional.empty())
					.orElseThrow(() -> ConsoleRequestException
						.badRequest("Queue '" + name + "' keeps no given-up " + logged(text)));
				forget(queue, item);
				queue.add(item);
				// The record goes last: should this fail, the item is queued all the
				// same and its record is kept, a duplicate at worst. Only the record
				// sent through goes: the item given up again meanwhile keeps its new one.
				inspector.deleteGivenUp(text, record.get().at());
				logger.info(LogMessage.format("Console: given-up %s added again to queue '%s' by %s", inLog(text), name,
						caller));
			}
			case "delete" -> {
				QueueInspector inspector = inspector(queue);
				String text = text(body);
				if (!inspector.deleteGivenUp(text)) {
					throw ConsoleRequestException.badRequest("Queue '" + name + "' keeps no given-up " + logged(text));
				}
				logger.info(LogMessage.format("Console: given-up %s deleted from queue '%s' by %s", inLog(text), name,
						caller));
			}
			case "forget" -> {
				QueueInspector inspector = inspector(queue);
				String text = text(body);
				Object item = item(inspector, name, text).orElseThrow(
						() -> ConsoleRequestException.badRequest("Queue '" + name + "' has no " + logged(text)));
				forget(queue, item);
				logger.info(LogMessage.format("Console: history of %s in queue '%s' forgotten by %s", inLog(text), name,
						caller));
			}
			default -> throw new IllegalStateException("Unknown action " + action);
		}
	}

	/**
	 * Resumes the queue through its inspector and this instance's workers, which the
	 * Actuator may have paused: either pause shows as paused.
	 */
	private void resume(RateLimitingQueue<Object> queue) {
		Optional<QueueInspector> inspector = queue.capability(QueueInspector.class);
		if (this.operations == null) {
			inspector.orElseThrow(() -> noInspector(queue)).resume();
			return;
		}
		try {
			this.operations.setPaused(queue.name(), false);
		}
		catch (IllegalArgumentException ex) {
			throw ConsoleRequestException.badRequest(ex.getMessage());
		}
		inspector.ifPresent(QueueInspector::resume);
	}

	private static QueueInspector inspector(RateLimitingQueue<Object> queue) {
		return queue.capability(QueueInspector.class).orElseThrow(() -> noInspector(queue));
	}

	private static ConsoleRequestException noInspector(RateLimitingQueue<Object> queue) {
		return ConsoleRequestException
			.badRequest("Queue '" + queue.name() + "' cannot be looked into: it has no QueueInspector");
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

	/**
	 * The text of the item a body names, by {@code item} (its text, which may be empty:
	 * an item held or given up can be the empty string) or {@code id}.
	 */
	private String text(Map<String, Object> body) {
		boolean byText = body.containsKey("item");
		boolean byId = body.containsKey("id");
		if (byText == byId) {
			throw ConsoleRequestException.badRequest("Give the item as one of item (its text) or id");
		}
		if (byText) {
			if (body.get("item") instanceof String text) {
				return text;
			}
			throw ConsoleRequestException.badRequest("item must be a string");
		}
		return this.ids.text(string(body, "id"))
			.orElseThrow(() -> ConsoleRequestException.badRequest(
					"id names no item of this instance: ids differ between instances and restarts, reload the page"));
	}

	private static String string(Map<String, Object> body, String key) {
		if (body.get(key) instanceof String value && !value.isEmpty()) {
			return value;
		}
		throw ConsoleRequestException.badRequest(key + " must be a non-empty string");
	}

	/**
	 * The request's body as a JSON object. With items hidden the parser's message is left
	 * out, since it may quote the body.
	 */
	private Map<String, Object> values(byte[] body) {
		if (new String(body, StandardCharsets.UTF_8).isBlank()) {
			return Map.of();
		}
		try {
			@SuppressWarnings("unchecked")
			Map<String, Object> values = JsonMapper.shared().readValue(body, Map.class);
			if (values != null) {
				return values;
			}
		}
		catch (JacksonException ex) {
			if (this.showItems) {
				throw ConsoleRequestException.badRequest("The body must be a JSON object: " + ex.getOriginalMessage());
			}
		}
		throw ConsoleRequestException.badRequest("The body must be a JSON object");
	}

	/**
	 * Whether an operator's text can be added to a queue: through its codec, or as a
	 * {@code String} on a memory queue without one (the starter's rule for a queue
	 * without a codec bean, whose Redis and PostgreSQL queues take strings; a worker
	 * whose parameter is of another type refuses it, as any item that does not fit).
	 * @param inspector the queue's inspector
	 * @return whether the console offers an add
	 */
	static boolean addsText(QueueInspector inspector) {
		return inspector.readsText() || "memory".equals(inspector.backend());
	}

	/** The item a text stands for; a text the queue cannot read is a bad value. */
	private Optional<Object> item(QueueInspector inspector, String name, String text) {
		try {
			return inspector.item(text);
		}
		catch (IllegalArgumentException ex) {
			throw ConsoleRequestException.badRequest(unreadable(name, text, ex));
		}
	}

	/**
	 * Why a text cannot be read: with items hidden, a fixed message naming the item's id
	 * and the class of the codec's exception, since its message often quotes the text.
	 */
	private String unreadable(String name, String text, @Nullable IllegalArgumentException ex) {
		String message = logged(text) + " cannot be read by queue '" + name + "'";
		if (ex == null) {
			return message;
		}
		if (this.showItems) {
			return message + ": " + ex.getMessage();
		}
		return message + " (" + ((ex.getCause() != null) ? ex.getCause() : ex).getClass().getName() + ")";
	}

	/**
	 * An item as a log line names it: as an answer does ({@link #logged}), but by its
	 * hash where the application keeps items out of its logs
	 * ({@code workqueue.log-items}).
	 */
	private String inLog(String text) {
		return (this.showItems && this.itemLogging == ItemLogging.HASH) ? "item " + this.itemLogging.describe(text)
				: logged(text);
	}

	/**
	 * An item as an answer or a log line names it: its text only when items are shown.
	 */
	private String logged(String text) {
		if (!this.showItems) {
			return "item id " + this.ids.id(text);
		}
		return "item '" + ItemLogging.TEXT.describe(text) + "'";
	}

}
