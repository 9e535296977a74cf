package dev.workqueue.spring.worker;

/**
 * Describes items for log messages without trusting them: an item's {@code toString} may
 * throw, and then the item's class stands in for it.
 */
final class Items {

	private Items() {
	}

	/**
	 * Returns {@code item.toString()}, or its class name if that throws.
	 * @param item the item
	 * @return a description that never throws
	 */
	static String describe(Object item) {
		try {
			return String.valueOf(item);
		}
		catch (RuntimeException | LinkageError | StackOverflowError ex) {
			return "(an item of " + item.getClass().getName() + " whose toString threw " + ex.getClass().getName()
					+ ")";
		}
	}

}
