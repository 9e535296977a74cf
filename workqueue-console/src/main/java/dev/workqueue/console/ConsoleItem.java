package dev.workqueue.console;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/**
 * One item as the console's JSON API gives it.
 *
 * @param text the item's text; {@code null} (left out of the JSON) with
 * {@code workqueue.console.show-items=false}
 * @param id the item's opaque id: the same for the same text while the application runs
 * @param state {@code ready}, {@code processing}, {@code waiting} or {@code given-up}
 * @param priority its priority (0 on a queue without priorities)
 * @param at when it became ready, was handed out, falls due or was given up (ISO-8601)
 * @param holder which instance holds it or gave it up, {@code null} otherwise
 * @param leaseLeftMillis how long its holder's lease has left, {@code null} where there
 * is none
 * @param ahead whether an instance claimed it ahead for its waiting workers
 * @param attempts its failed attempts, -1 where nothing counts them
 * @param reason why it was given up, {@code null} for other states
 */
public record ConsoleItem(@JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String text, String id, String state,
		int priority, String at, @Nullable String holder, @Nullable Long leaseLeftMillis, boolean ahead, int attempts,
		@Nullable String reason) {

}
