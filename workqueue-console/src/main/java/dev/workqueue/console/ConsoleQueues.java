package dev.workqueue.console;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.spring.WorkQueueOperations;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.autoconfigure.WorkQueueDetails;
import dev.workqueue.time.Clock;

/**
 * Reads the queues for the console: each queue's figures from one
 * {@link WorkQueue#stats()} reading, its {@link QueueInspector} and its workers here
 * ({@link WorkQueueOperations}), and its items as the JSON API gives them.
 * {@link ConsoleFigures} keeps the latest figures of every queue.
 * <p>
 * Thread-safe: it keeps no state of its own beyond what it is given.
 */
final class ConsoleQueues {

	private static final Log logger = LogFactory.getLog(ConsoleQueues.class);

	private static final double NANOS_PER_SECOND = 1e9;

	private final WorkQueueRegistry queues;

	private final @Nullable WorkQueueOperations operations;

	private final List<WorkQueueDetails> details;

	private final RateSampler rates;

	private final ItemIds ids;

	private final WorkQueueConsoleProperties properties;

	private final Clock clock;

	ConsoleQueues(WorkQueueRegistry queues, @Nullable WorkQueueOperations operations, List<WorkQueueDetails> details,
			RateSampler rates, ItemIds ids, WorkQueueConsoleProperties properties, Clock clock) {
		this.queues = queues;
		this.operations = operations;
		this.details = details;
		this.rates = rates;
		this.ids = ids;
		this.properties = properties;
		this.clock = clock;
	}

	/**
	 * Returns the names of the queues, sorted.
	 * @return their names
	 */
	List<String> names() {
		return this.queues.names().stream().sorted().toList();
	}

	/**
	 * Returns the overview of the queues whose figures are given.
	 * @param figures every queue's figures, sorted by name
	 * @param time when the figures were read (ISO-8601)
	 * @return the overview
	 */
	ConsoleOverview overview(List<ConsoleQueue> figures, String time) {
		return new ConsoleOverview(instance(), this.properties.isReadOnly(), this.properties.isShowItems(), time,
				figures);
	}

	/**
	 * Returns the queue named {@code name}.
	 * @param name the queue's name
	 * @return the queue, empty if there is none of that name
	 */
	Optional<RateLimitingQueue<Object>> queue(String name) {
		return this.queues.names().contains(name) ? Optional.of(this.queues.get(name)) : Optional.empty();
	}

	/**
	 * Returns which instance answers: the one its queues' inspectors name, else the JVM's
	 * name ({@code pid@host}).
	 * @return the instance's name
	 */
	String instance() {
		return this.queues.names()
			.stream()
			.sorted()
			.map((name) -> this.queues.get(name).capability(QueueInspector.class))
			.flatMap(Optional::stream)
			.map(QueueInspector::instance)
			.findFirst()
			.orElseGet(() -> ManagementFactory.getRuntimeMXBean().getName());
	}

	/**
	 * The time the console shows now: on the application's clock, as the memory queues'
	 * times.
	 * @return the instant
	 */
	Instant now() {
		return this.clock.instant();
	}

	/**
	 * Reads the figures of the queue named {@code name}, afresh: one statement or more on
	 * a shared store, which can take a while on a long queue.
	 * @param name the name of a queue of the registry
	 * @return its figures, without items
	 */
	ConsoleQueue describe(String name) {
		WorkQueue<?> queue = this.queues.get(name);
		Optional<QueueInspector> inspector = queue.capability(QueueInspector.class);
		String backend = inspector.map(QueueInspector::backend).orElseGet(() -> backend(name));
		boolean priority = queue instanceof PriorityQueue;
		boolean readsText = inspector.map(ConsoleActions::addsText).orElse(false);
		WorkQueueOperations.Workers workers = (this.operations != null) ? this.operations.workers(name)
				: new WorkQueueOperations.Workers(0, false);
		int concurrency = workers.concurrency();
		ConsoleRates rates = this.rates.rates(name);
		String readAt = now().toString();
		try {
			WorkQueueStats stats = queue.stats();
			Integer givenUp = inspector.map(QueueInspector::givenUpCount).orElse(null);
			boolean paused = workers.paused() || inspector.map(QueueInspector::paused).orElse(false);
			return new ConsoleQueue(name, backend, inspector.isPresent(), stats.depth(), stats.processing(),
					stats.waiting(), givenUp, concurrency, paused, priority, readsText,
					stats.longestRunningProcessorNanos() / NANOS_PER_SECOND, rates, null, readAt, null, null, null);
		}
		catch (RuntimeException ex) {
			// A shared store out of reach: say so for this queue and show the rest.
			logger.debug(LogMessage.format("Could not read queue '%s'", name), ex);
			return new ConsoleQueue(name, backend, inspector.isPresent(), null, null, null, null, concurrency, null,
					priority, readsText, null, rates, "cannot read the queue: " + message(ex), readAt, null, null,
					null);
		}
	}

	/**
	 * Returns whether item text is shown ({@code workqueue.console.show-items}).
	 * @return {@code true} if it is
	 */
	boolean showsItems() {
		return this.properties.isShowItems();
	}

	/**
	 * Returns an item as the JSON API gives it: without its text unless items are shown,
	 * and then with the reason of a give-up cut to its exception's class, since a
	 * worker's message often quotes the item.
	 * @param item the item
	 * @return its JSON form
	 */
	ConsoleItem item(ItemView item) {
		boolean shown = this.properties.isShowItems();
		return new ConsoleItem(shown ? item.text() : null, this.ids.id(item.text()), item.state().label(),
				item.priority(), item.at().toString(), item.holder(),
				(item.leaseLeft() != null) ? item.leaseLeft().toMillis() : null, item.ahead(), item.attempts(),
				shown ? item.reason() : exceptionClass(item.reason()));
	}

	/** The part of a reason ({@code Throwable.toString()}'s form) before its message. */
	private static @Nullable String exceptionClass(@Nullable String reason) {
		int colon = (reason != null) ? reason.indexOf(':') : -1;
		return (colon < 0) ? reason : reason.substring(0, colon);
	}

	private String backend(String name) {
		return this.details.stream()
			.map((source) -> source.backend(name))
			.filter((backend) -> !"unknown".equals(backend))
			.findFirst()
			.orElse("unknown");
	}

	private static String message(Throwable ex) {
		return Objects.requireNonNullElse(ex.getMessage(), ex.getClass().getName());
	}

}
