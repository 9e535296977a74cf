package dev.workqueue.spring.worker;

/**
 * Thrown at start-up when a {@link dev.workqueue.spring.QueueWorker @QueueWorker} method
 * cannot be run: it has the wrong shape, names a queue that does not exist, or asks for
 * an invalid concurrency. The message names the method.
 */
public final class InvalidQueueWorkerException extends IllegalStateException {

	private final String worker;

	/**
	 * Creates an exception.
	 * @param worker the method, as {@code ClassName.methodName(ParameterTypes)}
	 * @param problem what is wrong with it
	 */
	public InvalidQueueWorkerException(String worker, String problem) {
		super("@QueueWorker method " + worker + " " + problem);
		this.worker = worker;
	}

	/**
	 * Returns the method at fault.
	 * @return the method, as {@code ClassName.methodName(ParameterTypes)}
	 */
	public String getWorker() {
		return this.worker;
	}

}
