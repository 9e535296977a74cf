package dev.workqueue.console;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.CacheControl;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.QueueInspector;

/**
 * The console's JSON API under {@code {path}/api/queues}: every queue's figures, and one
 * queue's figures with its items; and the actions, under
 * {@code {path}/api/queues/{name}/actions/{action}}, each refused (403) on a read-only
 * console and (415) without a JSON content type. Figures come from the latest reading
 * ({@link ConsoleFigures}); an action's answer reads its queue's figures afresh. Answers,
 * errors included, are never cached by the browser.
 */
@RestController
@RequestMapping("${workqueue.console.path:/workqueue}/api/queues")
final class ConsoleApiController {

	/** Items per list unless asked. */
	static final int DEFAULT_LIMIT = 50;

	/** The most items per list. */
	static final int MAX_LIMIT = 500;

	/** The largest action body read: 1 MiB. */
	static final int MAX_BODY_BYTES = 1 << 20;

	/** The answer to every action on a read-only console. */
	static final String READ_ONLY = "Read-only console: set workqueue.console.read-only=false to allow actions";

	private final ConsoleQueues queues;

	private final ConsoleFigures figures;

	private final ConsoleActions actions;

	private final boolean readOnly;

	ConsoleApiController(ConsoleQueues queues, ConsoleFigures figures, ConsoleActions actions, boolean readOnly) {
		this.queues = queues;
		this.figures = figures;
		this.actions = actions;
		this.readOnly = readOnly;
	}

	@GetMapping
	ResponseEntity<ConsoleOverview> overview() {
		return ResponseEntity.ok().cacheControl(CacheControl.noStore()).body(this.figures.overview());
	}

	@GetMapping("/{name}")
	ResponseEntity<ConsoleQueue> queue(@PathVariable String name,
			@RequestParam(required = false) @Nullable String limit,
			@RequestParam(required = false) @Nullable String offset,
			@RequestParam(required = false) @Nullable String state,
			@RequestParam(required = false) @Nullable String find) {
		int limitValue = number("limit", limit, DEFAULT_LIMIT, 1, MAX_LIMIT);
		int offsetValue = number("offset", offset, 0, 0, QueueInspector.MAX_DEPTH - limitValue);
		List<ItemState> states = (state != null) ? List.of(state(state)) : List.of(ItemState.values());
		RateLimitingQueue<Object> queue = this.queues.queue(name)
			.orElseThrow(() -> ConsoleRequestException.notFound("No queue named '" + name + "'"));
		// The latest figures: only the items are read on the request's thread.
		ConsoleQueue described = this.figures.figures(name);
		QueueInspector inspector = queue.capability(QueueInspector.class).orElse(null);
		if (inspector == null || described.error() != null) {
			return answer(described);
		}
		Map<String, List<ConsoleItem>> items = new LinkedHashMap<>();
		List<ConsoleItem> found;
		try {
			for (ItemState listed : states) {
				// Without a state, each list from its start: the offset pages one list.
				int from = (state != null) ? offsetValue : 0;
				items.put(listed.label(),
						inspector.items(listed, from, limitValue).stream().map(this.queues::item).toList());
			}
			found = (find != null) ? inspector.find(find).stream().map(this.queues::item).toList() : null;
		}
		catch (RuntimeException ex) {
			// The store went out of reach after the figures were read.
			throw ConsoleRequestException.unavailable("cannot read the items of queue '" + name + "'", ex,
					this.queues.showsItems());
		}
		return answer(described.withItems(items, found));
	}

	/**
	 * Runs an action. The body is read only after the checks that refuse it whatever it
	 * is: on a read-only console (403), and without
	 * {@code Content-Type: application/json} (415), which a cross-site form or a
	 * body-less request cannot send without the browser asking first. A request with
	 * neither a body nor a content type is taken when it carries no {@code Origin}: a
	 * browser sends one with every cross-site {@code POST}, an API client (curl, a test's
	 * client) none.
	 */
	@PostMapping("/{name}/actions/{action}")
	ResponseEntity<ConsoleQueue> act(@PathVariable String name, @PathVariable String action, HttpServletRequest request)
			throws IOException {
		if (this.readOnly) {
			throw new ConsoleRequestException(HttpStatus.FORBIDDEN, READ_ONLY);
		}
		String contentType = request.getContentType();
		boolean json = isJson(contentType);
		if (!json && (contentType != null || request.getHeader(HttpHeaders.ORIGIN) != null)) {
			throw notJson();
		}
		RateLimitingQueue<Object> queue = this.queues.queue(name)
			.orElseThrow(() -> ConsoleRequestException.notFound("No queue named '" + name + "'"));
		byte[] body = body(request);
		if (!json && body.length > 0) {
			throw notJson();
		}
		this.actions.run(queue, action, body, request.getUserPrincipal());
		return answer(this.figures.refresh(name).withInstance(this.queues.instance()));
	}

	private static ConsoleRequestException notJson() {
		return new ConsoleRequestException(HttpStatus.UNSUPPORTED_MEDIA_TYPE,
				"An action's body must be sent with Content-Type: application/json");
	}

	/**
	 * An action's body, refused past {@link #MAX_BODY_BYTES} before more is read: the
	 * servlet container bounds forms only, and an action's body is a JSON object.
	 */
	private static byte[] body(HttpServletRequest request) throws IOException {
		byte[] body = request.getInputStream().readNBytes(MAX_BODY_BYTES + 1);
		if (body.length > MAX_BODY_BYTES) {
			throw new ConsoleRequestException(HttpStatus.CONTENT_TOO_LARGE,
					"An action's body is at most 1 MiB (an item's text included)");
		}
		return body;
	}

	@ExceptionHandler
	ResponseEntity<ConsoleError> refused(ConsoleRequestException ex) {
		return ResponseEntity.status(ex.status())
			.cacheControl(CacheControl.noStore())
			.body(new ConsoleError(ex.getMessage()));
	}

	private static boolean isJson(@Nullable String contentType) {
		try {
			return contentType != null
					&& MediaType.APPLICATION_JSON.equalsTypeAndSubtype(MediaType.parseMediaType(contentType));
		}
		catch (InvalidMediaTypeException ex) {
			return false;
		}
	}

	private static ResponseEntity<ConsoleQueue> answer(ConsoleQueue queue) {
		return ResponseEntity.status(HttpStatus.OK).cacheControl(CacheControl.noStore()).body(queue);
	}

	private static ItemState state(String label) {
		try {
			return ItemState.ofLabel(label);
		}
		catch (IllegalArgumentException ex) {
			throw ConsoleRequestException.badRequest(ex.getMessage());
		}
	}

	private static int number(String parameter, @Nullable String value, int absent, int min, int max) {
		if (value == null) {
			return absent;
		}
		try {
			int number = Integer.parseInt(value);
			if (number >= min && number <= max) {
				return number;
			}
		}
		catch (NumberFormatException ex) {
			// Answered below, as a number out of range.
		}
		throw ConsoleRequestException
			.badRequest(parameter + " must be a whole number from " + min + " to " + max + ", was '" + value + "'");
	}

}
