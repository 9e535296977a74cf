package dev.workqueue.spring.worker;

/**
 * The state of the worker threads of one {@code @QueueWorker} method at one moment, as
 * reported by {@link WorkerContainerRegistry#pools()}.
 *
 * @param queue the name of the queue the method takes items from
 * @param worker the method, as {@code beanName#methodName}
 * @param concurrency the number of threads the method runs with
 * @param aliveThreads the number of those threads started and not yet ended
 * @param running whether the pool is started, not stopped, and none of its threads ended
 * unexpectedly
 */
public record WorkerPoolStatus(String queue, String worker, int concurrency, int aliveThreads, boolean running) {

}
