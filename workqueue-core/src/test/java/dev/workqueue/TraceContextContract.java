package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The contract's trace-context rules (§2 "Observation"), written once for every backend:
 * the context of an item's first effective add since its last hand-out is the parent of
 * its next processing, the later adds until that hand-out are links (the first
 * {@value ItemTrace#MAX_LINKS}), and nothing is stored for an add without a context. A
 * backend's test class says how to build a queue with a {@link TraceContextSource} on
 * {@link #clock}, and how many items it stores contexts for.
 * <p>
 * The source is {@link #current}: what a tracer would report as the current span on the
 * adding thread (every add here is made by the test's thread).
 */
public abstract class TraceContextContract {

	private static final Duration SOON = Duration.ofSeconds(2);

	/** The clock every queue of the test runs on. */
	protected final FakeClock clock = new FakeClock();

	/** The context of the "current span", {@code null} for none. */
	protected final AtomicReference<String> current = new AtomicReference<>();

	/** How often the source was asked. */
	protected final AtomicInteger captures = new AtomicInteger();

	/** The source every queue of the test is built with. */
	protected final TraceContextSource source = () -> {
		this.captures.incrementAndGet();
		return this.current.get();
	};

	private final List<WorkQueue<String>> opened = new ArrayList<>();

	/**
	 * Builds a rate-limiting queue with {@link #source} on {@link #clock}.
	 * @param limiter its limiter
	 * @return a new queue
	 */
	protected abstract RateLimitingQueue<String> newQueue(RateLimiter<Object> limiter);

	/**
	 * Builds a priority queue with {@link #source} on {@link #clock}.
	 * @param limiter its limiter
	 * @return a new queue
	 */
	protected abstract PriorityQueue<String> newPriorityQueue(RateLimiter<Object> limiter);

	/**
	 * Returns for how many items {@code queue} stores trace contexts now.
	 * @param queue a queue of this test
	 * @return the number of items with a context
	 */
	protected abstract int storedTraces(WorkQueue<String> queue);

	@AfterEach
	void shutDownQueues() {
		this.opened.forEach(WorkQueue::shutDown);
	}

	private RateLimitingQueue<String> queue() {
		return track(newQueue(new FixedDelay(Duration.ofSeconds(1))));
	}

	private <Q extends WorkQueue<String>> Q track(Q queue) {
		this.opened.add(queue);
		return queue;
	}

	private void add(WorkQueue<String> queue, String item, String context) {
		this.current.set(context);
		queue.add(item);
		this.current.set(null);
	}

	/** Polls until an item is handed out, returning it with its trace. */
	private static Taken next(Poller<String> poller) {
		AtomicReference<Taken> taken = new AtomicReference<>();
		await().atMost(SOON).until(() -> {
			Prioritized<String> item = poller.poll(Duration.ZERO);
			if (item == null) {
				return false;
			}
			taken.set(new Taken(item.item(), item.priority(), poller.trace()));
			return true;
		});
		return taken.get();
	}

	@Test
	void firstAddIsTheParentAndLaterAddsWithAContextAreLinks() {
		RateLimitingQueue<String> queue = queue();
		Poller<String> poller = Pollers.of(queue);
		add(queue, "x", "add-1");
		add(queue, "x", "add-2");
		add(queue, "x", null);
		add(queue, "x", "add-3");
		Taken taken = next(poller);
		assertThat(taken.item()).isEqualTo("x");
		assertThat(taken.trace()).isEqualTo(new ItemTrace("add-1", List.of("add-2", "add-3")));
		queue.done("x");
		assertThat(storedTraces(queue)).isZero();
	}

	@Test
	void linksAreTheFirstEightLaterAdds() {
		RateLimitingQueue<String> queue = queue();
		Poller<String> poller = Pollers.of(queue);
		add(queue, "x", "parent");
		List<String> links = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			add(queue, "x", "link-" + i);
			links.add("link-" + i);
		}
		Taken taken = next(poller);
		assertThat(taken.trace().parent()).isEqualTo("parent");
		assertThat(taken.trace().links()).containsExactlyElementsOf(links.subList(0, ItemTrace.MAX_LINKS));
	}

	@Test
	void addsWithoutAContextStoreNothing() {
		RateLimitingQueue<String> queue = queue();
		Poller<String> poller = Pollers.of(queue);
		queue.add("x");
		queue.addAfter("y", Duration.ofSeconds(1));
		queue.addRateLimited("z");
		queue.addAll(List.of("x", "w"));
		assertThat(this.captures).hasValue(4);
		assertThat(storedTraces(queue)).isZero();
		Taken taken = next(poller);
		assertThat(taken.trace()).isNull();
	}

	@Test
	void aFirstAddWithoutAContextLeavesNoParentAndLaterAddsAreLinks() {
		RateLimitingQueue<String> queue = queue();
		Poller<String> poller = Pollers.of(queue);
		add(queue, "x", null);
		add(queue, "x", "later");
		assertThat(next(poller).trace()).isEqualTo(new ItemTrace(null, List.of("later")));
	}

	@Test
	void anAddWhileProcessingIsTheParentOfTheNextProcessing() {
		RateLimitingQueue<String> queue = queue();
		Poller<String> poller = Pollers.of(queue);
		add(queue, "x", "request");
		assertThat(next(poller).trace()).isEqualTo(new ItemTrace("request", List.of()));
		// The worker's span adds it again (dirty), then another one does.
		add(queue, "x", "attempt-1");
		add(queue, "x", "other");
		queue.done("x");
		assertThat(next(poller).trace()).isEqualTo(new ItemTrace("attempt-1", List.of("other")));
		queue.done("x");
		assertThat(storedTraces(queue)).isZero();
	}

	@Test
	void aRetryIsAChildOfTheFailedAttempt() {
		RateLimitingQueue<String> queue = queue();
		Poller<String> poller = Pollers.of(queue);
		add(queue, "x", "request");
		assertThat(next(poller).trace().parent()).isEqualTo("request");
		this.current.set("attempt-1");
		queue.addRateLimited("x");
		this.current.set(null);
		queue.done("x");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(next(poller).trace()).isEqualTo(new ItemTrace("attempt-1", List.of()));
		this.current.set("attempt-2");
		queue.addRateLimited("x");
		this.current.set(null);
		queue.done("x");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(next(poller).trace()).isEqualTo(new ItemTrace("attempt-2", List.of()));
		queue.done("x");
		assertThat(storedTraces(queue)).isZero();
	}

	@Test
	void aDelayedAddKeepsItsParentForTheHandOutItBrings() {
		RateLimitingQueue<String> queue = queue();
		Poller<String> poller = Pollers.of(queue);
		this.current.set("delayed");
		queue.addAfter("x", Duration.ofSeconds(1));
		add(queue, "x", "now");
		// Queued at once by the add; the delay stays pending and brings it back.
		assertThat(next(poller).trace()).isEqualTo(new ItemTrace("delayed", List.of("now")));
		queue.done("x");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(next(poller).trace()).isEqualTo(new ItemTrace("delayed", List.of()));
		queue.done("x");
		assertThat(storedTraces(queue)).isZero();
	}

	@Test
	void addAllGivesEachItemTheContext() {
		RateLimitingQueue<String> queue = queue();
		Poller<String> poller = Pollers.of(queue);
		this.current.set("batch");
		queue.addAll(List.of("x", "y"));
		this.current.set(null);
		assertThat(this.captures).hasValue(1);
		assertThat(List.of(next(poller), next(poller))).extracting(Taken::trace)
			.containsOnly(new ItemTrace("batch", List.of()));
	}

	@Test
	void plainGetDropsTheContexts() throws Exception {
		RateLimitingQueue<String> queue = queue();
		add(queue, "x", "request");
		assertThat(storedTraces(queue)).isOne();
		assertThat(queue.poll(SOON)).isEqualTo("x");
		assertThat(storedTraces(queue)).isZero();
		queue.done("x");
	}

	@Test
	void priorityAddsCarryContextsToo() {
		PriorityQueue<String> queue = track(newPriorityQueue(new FixedDelay(Duration.ofSeconds(1))));
		Poller<String> poller = Pollers.of(queue);
		this.current.set("high");
		queue.add("x", 5);
		this.current.set("higher");
		queue.add("x", 7);
		this.current.set("delayed");
		queue.addAfter("y", Duration.ofSeconds(1), 1);
		this.current.set(null);
		Taken x = next(poller);
		assertThat(x.item()).isEqualTo("x");
		assertThat(x.priority()).isEqualTo(7);
		assertThat(x.trace()).isEqualTo(new ItemTrace("high", List.of("higher")));
		this.current.set("retry");
		queue.addRateLimited("x", 7);
		this.current.set(null);
		queue.done("x");
		this.clock.step(Duration.ofSeconds(1));
		Taken first = next(poller);
		Taken second = next(poller);
		assertThat(List.of(first, second)).extracting(Taken::item).containsExactly("x", "y");
		assertThat(first.trace()).isEqualTo(new ItemTrace("retry", List.of()));
		assertThat(second.trace()).isEqualTo(new ItemTrace("delayed", List.of()));
		queue.done("x");
		queue.done("y");
		assertThat(storedTraces(queue)).isZero();
	}

	/** An item as a poller handed it out. */
	private record Taken(String item, int priority, ItemTrace trace) {
	}

	/**
	 * Always the same delay, counting nothing: the backend's limiters are not tested
	 * here.
	 */
	private record FixedDelay(Duration delay) implements RateLimiter<Object> {

		@Override
		public Duration when(Object item) {
			return this.delay;
		}

		@Override
		public void forget(Object item) {
		}

		@Override
		public int numRequeues(Object item) {
			return 0;
		}

	}

}
