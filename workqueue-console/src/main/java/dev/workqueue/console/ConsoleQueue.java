package dev.workqueue.console;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/**
 * One queue as the console's JSON API gives it: its figures and, on its own page, its
 * items. The figures read from the queue are {@code null} when it could not be read, and
 * {@code error} says why.
 *
 * @param name the queue's name
 * @param backend {@code memory}, {@code redis}, {@code postgres}, or {@code unknown}
 * @param inspect whether the queue can be looked into (it has a
 * {@link dev.workqueue.inspect.QueueInspector}); without, it has figures and no items
 * @param depth items ready to be handed out
 * @param processing items handed out and not yet done
 * @param waiting items waiting for a delay
 * @param givenUp given-up items kept
 * @param concurrency worker threads serving the queue in this instance
 * @param paused whether the queue or its workers are paused
 * @param priority whether it is a priority queue
 * @param readsText whether an item typed as text can be added
 * @param longestRunningSeconds how long the item in process longest has been in process
 * @param rates recent rates of adds and retries
 * @param error why the queue could not be read, {@code null} when it was
 * @param readAt when these figures were read (ISO-8601)
 * @param items its items by state, on its own page; {@code null} (left out) otherwise
 * @param found the items found by their text; {@code null} (left out) unless asked
 * @param instance the instance that ran an action, in an action's answer; {@code null}
 * (left out) otherwise
 */
public record ConsoleQueue(String name, String backend, boolean inspect, @Nullable Integer depth,
		@Nullable Integer processing, @Nullable Integer waiting, @Nullable Integer givenUp, int concurrency,
		@Nullable Boolean paused, boolean priority, boolean readsText, @Nullable Double longestRunningSeconds,
		ConsoleRates rates, @Nullable String error, String readAt,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Map<String, List<ConsoleItem>> items,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Nullable List<ConsoleItem> found,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String instance) {

	ConsoleQueue withItems(@Nullable Map<String, List<ConsoleItem>> items, @Nullable List<ConsoleItem> found) {
		return new ConsoleQueue(this.name, this.backend, this.inspect, this.depth, this.processing, this.waiting,
				this.givenUp, this.concurrency, this.paused, this.priority, this.readsText, this.longestRunningSeconds,
				this.rates, this.error, this.readAt, items, found, this.instance);
	}

	ConsoleQueue withInstance(String instance) {
		return new ConsoleQueue(this.name, this.backend, this.inspect, this.depth, this.processing, this.waiting,
				this.givenUp, this.concurrency, this.paused, this.priority, this.readsText, this.longestRunningSeconds,
				this.rates, this.error, this.readAt, this.items, this.found, instance);
	}

}
