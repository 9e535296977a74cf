package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The rules of a priority queue (the contract's §4 on top of §1), written once for every
 * backend: core runs them on {@link WorkQueues.Builder#buildPriorityQueue}, and
 * {@code workqueue-redis} on its own through core's test jar. Time moves only through
 * {@link #clock}.
 */
public abstract class PriorityQueueContract {

	private static final Duration SOON = Duration.ofSeconds(2);

	/** The clock every queue of the test runs on. */
	protected final FakeClock clock = new FakeClock();

	private final List<PriorityQueue<String>> opened = new ArrayList<>();

	/**
	 * Builds a priority queue on {@link #clock}.
	 * @param starvationTimeout the starvation guard, or {@code null} for none
	 * @return a new queue (a new handle on the test's queue for a shared backend)
	 */
	protected abstract PriorityQueue<String> newQueue(Duration starvationTimeout);

	private PriorityQueue<String> queue() {
		return queue(null);
	}

	private PriorityQueue<String> queue(Duration starvationTimeout) {
		PriorityQueue<String> queue = newQueue(starvationTimeout);
		this.opened.add(queue);
		return queue;
	}

	@AfterEach
	void shutDownQueues() {
		this.opened.forEach(WorkQueue::shutDown);
	}

	/** Takes every ready item, with its priority, marking each done. */
	private static List<Prioritized<String>> drain(PriorityQueue<String> queue) throws InterruptedException {
		List<Prioritized<String>> out = new ArrayList<>();
		Prioritized<String> next;
		while ((next = queue.pollWithPriority(Duration.ZERO)) != null) {
			out.add(next);
			queue.done(next.item());
		}
		return out;
	}

	private static List<String> items(List<Prioritized<String>> handedOut) {
		return handedOut.stream().map(Prioritized::item).toList();
	}

	private static Prioritized<String> next(PriorityQueue<String> queue) {
		AtomicReference<Prioritized<String>> next = new AtomicReference<>();
		await().atMost(SOON).until(() -> {
			next.set(queue.pollWithPriority(Duration.ZERO));
			return next.get() != null;
		});
		return next.get();
	}

	@Test
	void highestPriorityFirstAndFifoWithinAPriority() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.add("low-1", -5);
		queue.add("zero-1");
		queue.add("high-1", 10);
		queue.add("low-2", -5);
		queue.add("high-2", 10);
		queue.add("zero-2", 0);
		assertThat(queue.size()).isEqualTo(6);
		assertThat(drain(queue)).containsExactly(new Prioritized<>("high-1", 10), new Prioritized<>("high-2", 10),
				new Prioritized<>("zero-1", 0), new Prioritized<>("zero-2", 0), new Prioritized<>("low-1", -5),
				new Prioritized<>("low-2", -5));
	}

	@Test
	void aReadyItemAddedAgainWithAHigherPriorityLinesUpAtTheBackOfItsNewLevel() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.add("a", 1);
		queue.add("b", 5);
		queue.add("c", 5);
		queue.add("a", 5);
		queue.add("b", 1);
		queue.add("c", 5);
		assertThat(queue.size()).as("one entry per item").isEqualTo(3);
		assertThat(drain(queue)).containsExactly(new Prioritized<>("b", 5), new Prioritized<>("c", 5),
				new Prioritized<>("a", 5));
	}

	@Test
	void anItemAddedWhileProcessingIsDirtyWithTheHighestPriorityOfThoseAdds() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.add("x", 1);
		queue.add("y", 3);
		assertThat(queue.getWithPriority()).isEqualTo(new Prioritized<>("y", 3));
		queue.add("y", 2);
		queue.add("y", 7);
		queue.add("y", -1);
		assertThat(queue.size()).as("dirty, not ready").isOne();
		queue.done("y");
		assertThat(drain(queue)).containsExactly(new Prioritized<>("y", 7), new Prioritized<>("x", 1));
	}

	@Test
	void aWaitingItemKeepsTheHighestPriorityAndTheEarliestReadyTime() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.addAfter("x", Duration.ofSeconds(10), 1);
		queue.addAfter("x", Duration.ofSeconds(3), -4);
		queue.addAfter("x", Duration.ofSeconds(5), 6);
		queue.add("y", 2);
		this.clock.step(Duration.ofMillis(2999));
		assertThat(drain(queue)).containsExactly(new Prioritized<>("y", 2));
		this.clock.step(Duration.ofMillis(1));
		assertThat(next(queue)).isEqualTo(new Prioritized<>("x", 6));
		queue.done("x");
		this.clock.step(Duration.ofSeconds(10));
		assertThat(queue.pollWithPriority(Duration.ZERO)).as("the later waits were folded in").isNull();
	}

	@Test
	void anAddWithoutDelayMakesAWaitingItemReadyAtOnce() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.addAfter("x", Duration.ofSeconds(10), 4);
		queue.add("x", 1);
		assertThat(queue.size()).isOne();
		assertThat(queue.pollWithPriority(Duration.ZERO).item()).isEqualTo("x");
		queue.done("x");
	}

	@Test
	void aDelayedItemLinesUpByItsPriorityWhenItBecomesReady() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.add("early", 5);
		queue.addAfter("late-high", Duration.ofSeconds(1), 9);
		queue.addAfter("late-same", Duration.ofSeconds(1), 5);
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(SOON).until(() -> queue.size() == 3);
		assertThat(items(drain(queue))).containsExactly("late-high", "early", "late-same");
	}

	@Test
	void withoutAStarvationTimeoutPriorityIsStrict() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.add("old", 0);
		this.clock.step(Duration.ofHours(1));
		queue.add("new", 1);
		assertThat(items(drain(queue))).containsExactly("new", "old");
	}

	@Test
	void anItemReadyLongerThanTheStarvationTimeoutGoesFirstInTheOrderItBecameReady() throws Exception {
		PriorityQueue<String> queue = queue(Duration.ofSeconds(10));
		queue.add("old-low", -3);
		queue.add("old-lower", -9);
		this.clock.step(Duration.ofSeconds(5));
		queue.add("mid", 0);
		this.clock.step(Duration.ofSeconds(6));
		queue.add("fresh-high", 100);
		assertThat(items(drain(queue))).as("ready 11 s, 11 s, 6 s, 0 s")
			.containsExactly("old-low", "old-lower", "fresh-high", "mid");
	}

	@Test
	void aRetryAndARequeueKeepTheirPriority() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.addRateLimited("x", 4);
		queue.addAfter("y", Duration.ofMillis(1), 2);
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(SOON).until(() -> queue.size() == 2);
		assertThat(drain(queue)).containsExactly(new Prioritized<>("x", 4), new Prioritized<>("y", 2));
		queue.forget("x");
	}

	@Test
	void plainAddsUsePriorityZeroAndGetHandsOutTheItem() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.add("zero");
		queue.addAfter("zero-later", Duration.ZERO);
		queue.add("one", 1);
		assertThat(queue.get()).isEqualTo("one");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("zero");
		assertThat(queue.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("zero-later", 0));
	}

	@Test
	void sizeCountsEveryReadyItemWhateverItsPriority() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.add("a", PriorityQueue.MIN_PRIORITY);
		queue.add("b", PriorityQueue.MAX_PRIORITY);
		queue.add("c", 0);
		queue.addAfter("d", Duration.ofSeconds(1), 3);
		assertThat(queue.size()).isEqualTo(3);
		assertThat(queue.getWithPriority()).isEqualTo(new Prioritized<>("b", PriorityQueue.MAX_PRIORITY));
		assertThat(queue.size()).isEqualTo(2);
		assertThat(queue.stats().waiting()).isOne();
	}

	@Test
	void aPriorityOutOfRangeIsRefusedNamingTheBoundsAndChangesNothing() throws Exception {
		PriorityQueue<String> queue = queue();
		assertThatIllegalArgumentException().isThrownBy(() -> queue.add("x", PriorityQueue.MAX_PRIORITY + 1))
			.withMessageContaining("-1000000")
			.withMessageContaining("1000000");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> queue.addAfter("x", Duration.ofSeconds(1), PriorityQueue.MIN_PRIORITY - 1));
		assertThatIllegalArgumentException().isThrownBy(() -> queue.addRateLimited("x", Integer.MIN_VALUE));
		assertThat(queue.size()).isZero();
		assertThat(queue.stats().waiting()).isZero();
	}

	@Test
	void addsAfterShutDownAreIgnored() throws Exception {
		PriorityQueue<String> queue = queue();
		queue.shutDown();
		queue.add("a", 1);
		queue.addAfter("b", Duration.ofSeconds(1), 1);
		queue.addRateLimited("c", 1);
		assertThat(queue.size()).isZero();
		assertThat(queue.pollWithPriority(Duration.ZERO)).isNull();
	}

}
