package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

/**
 * client-go's rules for a delaying queue, written once for every backend: core runs them
 * on the queues {@link WorkQueues} builds, {@code workqueue-redis} on its own (through
 * core's test jar). A backend's test class extends this one and says how to build a queue
 * on a {@link FakeClock}; several handles built for one test share one queue where the
 * backend shares queues, and are independent where it does not.
 * <p>
 * Time moves only through {@link #clock}; an effect on another thread is awaited with a
 * deadline of 2 seconds, never slept for.
 */
public abstract class DelayingQueueContract {

	private static final Duration SOON = Duration.ofSeconds(2);

	/** The clock every queue of the test runs on. */
	protected final FakeClock clock = new FakeClock();

	private final List<DelayingQueue<String>> opened = new ArrayList<>();

	/**
	 * Builds a handle on the test's queue, on {@link #clock}.
	 * @return a new handle
	 */
	protected abstract DelayingQueue<String> newQueue();

	/**
	 * Whether {@code get} still hands out what is queued after {@code shutDown} (the
	 * in-memory queue, as client-go), or returns {@code null} at once and leaves the
	 * items to the other instances (a shared queue).
	 * @return whether a shut-down queue drains
	 */
	protected abstract boolean drainsAfterShutDown();

	private DelayingQueue<String> queue() {
		DelayingQueue<String> queue = newQueue();
		this.opened.add(queue);
		return queue;
	}

	@AfterEach
	void shutDownQueues() {
		this.opened.forEach(WorkQueue::shutDown);
	}

	/** The next ready item, once the queue's own thread has made it ready. */
	private static String next(WorkQueue<String> queue) {
		AtomicReference<String> item = new AtomicReference<>();
		await().atMost(SOON).until(() -> {
			item.set(queue.poll(Duration.ZERO));
			return item.get() != null;
		});
		return item.get();
	}

	@Test
	void distinctItemsAreHandedOutInTheOrderTheyWereAdded() throws Exception {
		DelayingQueue<String> queue = queue();
		for (String item : List.of("c", "a", "b", "d")) {
			queue.add(item);
		}
		assertThat(List.of(queue.poll(Duration.ZERO), queue.poll(Duration.ZERO), queue.poll(Duration.ZERO),
				queue.poll(Duration.ZERO)))
			.containsExactly("c", "a", "b", "d");
		assertThat(queue.poll(Duration.ZERO)).isNull();
	}

	@Test
	void anItemAddedAgainWhileQueuedIsHeldOnce() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.add("a");
		queue.add("b");
		queue.add("a");
		assertThat(queue.size()).isEqualTo(2);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("b");
		assertThat(queue.poll(Duration.ZERO)).isNull();
	}

	@Test
	void anItemAddedWhileProcessingIsHandedOutAgainOnlyAfterDone() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.add("a");
		queue.add("a");
		assertThat(queue.size()).as("held back while processing").isZero();
		assertThat(queue.poll(Duration.ZERO)).isNull();
		queue.done("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.done("a");
		assertThat(queue.poll(Duration.ZERO)).as("the two adds became one run").isNull();
	}

	@Test
	void doneOfAnItemNotBeingProcessedChangesNothing() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.add("a");
		queue.done("a");
		queue.done("b");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.done("a");
		assertThat(queue.stats().processing()).isZero();
	}

	@Test
	void aDelayedItemIsReadyWhenItsDelayHasPassedAndNotBefore() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.addAfter("a", Duration.ofSeconds(5));
		assertThat(queue.stats().waiting()).isOne();
		this.clock.step(Duration.ofMillis(4999));
		assertThat(queue.poll(Duration.ZERO)).isNull();
		assertThat(queue.stats().waiting()).isOne();
		this.clock.step(Duration.ofMillis(1));
		assertThat(next(queue)).isEqualTo("a");
		assertThat(queue.stats().waiting()).isZero();
	}

	@Test
	void addAfterOfAnItemAlreadyWaitingKeepsTheEarlierReadyTime() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.addAfter("a", Duration.ofSeconds(10));
		queue.addAfter("a", Duration.ofSeconds(2));
		queue.addAfter("a", Duration.ofSeconds(5));
		assertThat(queue.stats().waiting()).isOne();
		this.clock.step(Duration.ofSeconds(2));
		assertThat(next(queue)).isEqualTo("a");
		queue.done("a");
		this.clock.step(Duration.ofSeconds(10));
		assertThat(queue.stats().waiting()).isZero();
		assertThat(queue.poll(Duration.ZERO)).isNull();
	}

	@Test
	void delayedItemsComeOutInReadyTimeOrder() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.addAfter("late", Duration.ofSeconds(3));
		queue.addAfter("early", Duration.ofSeconds(1));
		queue.addAfter("middle", Duration.ofSeconds(2));
		this.clock.step(Duration.ofSeconds(1));
		assertThat(next(queue)).isEqualTo("early");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(next(queue)).isEqualTo("middle");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(next(queue)).isEqualTo("late");
	}

	@Test
	void addAfterWithoutADelayIsAnAdd() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.addAfter("a", Duration.ZERO);
		queue.addAfter("b", Duration.ofSeconds(-1));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("b");
	}

	@Test
	void anAddOfAWaitingItemQueuesItNowAndKeepsTheWait() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.addAfter("a", Duration.ofSeconds(1));
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.done("a");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(next(queue)).as("it comes again when due").isEqualTo("a");
	}

	@Test
	void afterShutDownAddsAreIgnoredAndDelayedItemsDoNotComeHere() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.add("queued");
		queue.addAfter("delayed", Duration.ofSeconds(1));
		queue.shutDown();
		assertThat(queue.isShuttingDown()).isTrue();
		queue.add("ignored");
		queue.addAfter("ignored too", Duration.ZERO);
		if (drainsAfterShutDown()) {
			assertThat(queue.get()).isEqualTo("queued");
		}
		this.clock.step(Duration.ofSeconds(1));
		assertThat(queue.get()).as("null at once, never blocking").isNull();
	}

	@Test
	void shutDownWithDrainWaitsForTheItemsBeingProcessed() throws Exception {
		DelayingQueue<String> queue = queue();
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		Thread drain = new Thread(queue::shutDownWithDrain);
		drain.start();
		await().atMost(SOON).until(queue::isShuttingDown);
		assertThat(drain.isAlive()).isTrue();
		queue.done("a");
		drain.join(SOON.toMillis());
		assertThat(drain.isAlive()).isFalse();
	}

	@Test
	void nullItemsAreRejected() {
		DelayingQueue<String> queue = queue();
		assertThatNullPointerException().isThrownBy(() -> queue.add(null));
		assertThatNullPointerException().isThrownBy(() -> queue.addAfter(null, Duration.ZERO));
		assertThatNullPointerException().isThrownBy(() -> queue.done(null));
	}

}
