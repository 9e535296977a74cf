package dev.workqueue.spring.worker;

/**
 * The state of one {@link WorkerContainer container}, the worker threads of one
 * {@code @QueueWorker} method, at one moment, as reported by
 * {@link WorkerContainerRegistry#containers()}.
 *
 * @param queue the name of the queue the method takes items from
 * @param worker the method, as {@code beanName#methodName}
 * @param concurrency the number of threads the method runs with (after a resize, the
 * number it is moving to)
 * @param aliveThreads the number of those threads started and not yet ended
 * @param running whether the container is started, not stopped, and none of its threads
 * ended unexpectedly; a paused container is running
 * @param paused whether its threads are paused: they take no new item
 */
public record WorkerContainerStatus(String queue, String worker, int concurrency, int aliveThreads, boolean running,
		boolean paused) {

}
