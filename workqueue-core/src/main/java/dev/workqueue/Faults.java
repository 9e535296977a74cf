package dev.workqueue;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Logs a fault of user code (an item's {@code equals}/{@code hashCode}, a metrics hook)
 * met by a thread that must go on. The message names the item's class, never the item:
 * its {@code toString} may throw too, or reveal personal data.
 */
final class Faults {

	private Faults() {
	}

	/**
	 * Logs {@code message} at WARNING with {@code fault}, adding the item's class.
	 * @param logger the logger
	 * @param message what failed, naming the queue
	 * @param item the item concerned, or {@code null}
	 * @param fault what was thrown
	 */
	static void log(Logger logger, String message, Object item, Throwable fault) {
		String text = (item != null) ? message + " (item of " + item.getClass().getName() + ")" : message;
		logger.log(Level.WARNING, text, fault);
	}

}
