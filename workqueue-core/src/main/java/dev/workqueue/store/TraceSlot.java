package dev.workqueue.store;

import dev.workqueue.spi.ItemTrace;

/**
 * Where a poller's take puts the trace contexts of the item it hands out: one per poller,
 * written and read by the poller's thread only (not thread-safe).
 * <p>
 * Part of the shared-store engine, used by store modules; may change before 1.0.
 */
public final class TraceSlot {

	private ItemTrace trace;

	/**
	 * Returns the contexts of the item the last take returned.
	 * @return the contexts, or {@code null} if it had none or nothing was taken
	 */
	public ItemTrace trace() {
		return this.trace;
	}

	/**
	 * Sets the contexts of the item a take returns.
	 * @param trace the contexts, or {@code null} for none
	 */
	public void trace(ItemTrace trace) {
		this.trace = trace;
	}

}
