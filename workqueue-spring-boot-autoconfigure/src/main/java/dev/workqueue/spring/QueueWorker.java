package dev.workqueue.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method as the worker of a work queue: the starter runs {@code concurrency}
 * threads that each take an item from the queue, call the method with it, and mark it
 * done.
 * <p>
 * The method takes the item and returns {@code void} or {@link WorkResult}. On a queue
 * with {@code priority.enabled} (a {@link dev.workqueue.PriorityQueue}) it may take a
 * second parameter, {@code int priority}: the priority the item was handed out with. A
 * retry and a {@code requeueAfter} keep that priority. What happens to the item depends
 * on how the call ends:
 * <ul>
 * <li>returns normally, or returns {@link WorkResult#done()}: the item is forgotten by
 * the rate limiter;</li>
 * <li>returns {@link WorkResult#requeue()}: the item is added again after its rate
 * limiter's delay (not a failure);</li>
 * <li>returns {@link WorkResult#requeueAfter(java.time.Duration)}: the item is forgotten,
 * then added again after that delay (not a failure);</li>
 * <li>throws: a failure. The item is added again after its rate limiter's delay while its
 * failures since its last success or give-up are at most the queue's {@code max-retries};
 * after that the worker gives up on it: forgets it, logs a warning and publishes a
 * {@link WorkItemGivenUpEvent}.</li>
 * </ul>
 * So {@code max-retries: 3} means at most 4 attempts. A worker thread never dies from an
 * exception thrown by the method. An item that is not an instance of the parameter's type
 * is given up at once, without calling the method.
 * <p>
 * The annotation is {@link Reflective @Reflective}: Spring AOT registers each annotated
 * method for reflective invocation, so workers run in AOT-processed applications and
 * native images.
 * <p>
 * The method is called through the bean as the container holds it, so advice of a proxy
 * ({@code @Transactional}, ...) applies. Worker threads start with the application
 * context and stop when it closes, after the queue has been drained for at most the
 * queue's {@code shutdown-timeout}. A method of the wrong shape, or naming a queue that
 * does not exist, fails the application's start-up.
 *
 * <pre class="code">
 * &#64;QueueWorker(queue = "orders", concurrency = "${orders.workers:4}")
 * void process(String orderId) {
 *     ...
 * }
 * </pre>
 *
 * @see WorkQueueRegistry
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface QueueWorker {

	/**
	 * Name of the queue to take items from: a {@code workqueue.queues} entry or a
	 * {@link dev.workqueue.RateLimitingQueue} bean of that name.
	 * @return the queue's name
	 */
	String queue();

	/**
	 * Number of worker threads for this method, overriding the queue's
	 * {@code concurrency}. {@code ${...}} placeholders are resolved; the result must be
	 * an integer of at least 1. Empty (the default) to use the queue's setting.
	 * @return the number of threads, or {@code ""}
	 */
	String concurrency() default "";

}
