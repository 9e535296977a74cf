package dev.workqueue.console;

import java.util.List;

/**
 * Every queue as the console's JSON API gives them, at one moment.
 *
 * @param instance which instance answers
 * @param readOnly whether actions are refused ({@code workqueue.console.read-only})
 * @param showItems whether item texts are sent ({@code workqueue.console.show-items})
 * @param time when the oldest of the queues' figures was read (ISO-8601)
 * @param queues the queues, sorted by name
 */
public record ConsoleOverview(String instance, boolean readOnly, boolean showItems, String time,
		List<ConsoleQueue> queues) {

}
