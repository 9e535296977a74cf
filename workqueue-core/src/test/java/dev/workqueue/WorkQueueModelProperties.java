package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.workqueue.time.FakeClock;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of operations on a delaying queue with a {@link FakeClock}, from one
 * thread, checked step by step against a simple model of client-go's rules: dedup,
 * dirty/processing, FIFO, the earliest ready time wins, shutdown.
 */
class WorkQueueModelProperties {

	@Property(tries = 300)
	void delayingQueueBehavesLikeTheModel(@ForAll("operations") List<Operation> operations) throws Exception {
		FakeClock clock = new FakeClock();
		Model model = new Model();
		try (DelayingQueue<String> queue = WorkQueues.<String>builder().clock(clock).buildDelayingQueue()) {
			for (Operation operation : operations) {
				operation.apply(queue, clock, model);
				assertThat(queue.size()).as("size after %s", operation).isEqualTo(model.size());
				assertThat(queue.stats().processing()).as("processing after %s", operation)
					.isEqualTo(model.processing.size());
				assertThat(queue.isShuttingDown()).isEqualTo(model.shutDown);
			}
		}
	}

	@Provide
	Arbitrary<List<Operation>> operations() {
		Arbitrary<String> items = Arbitraries.of("a", "b", "c", "d");
		Arbitrary<Operation> operation = Arbitraries.frequencyOf(Tuple.of(4, items.map(Add::new)),
				Tuple.of(5, Combinators.combine(items, Arbitraries.longs().between(-5, 30)).as(AddAfter::new)),
				Tuple.of(5, Arbitraries.just(new Poll())), Tuple.of(3, items.map(Done::new)),
				Tuple.of(3, Arbitraries.longs().between(0, 20).map(Step::new)),
				Tuple.of(1, Arbitraries.just(new ShutDown())));
		return operation.list().ofMinSize(1).ofMaxSize(50);
	}

	/** An operation applied to the queue and the model alike. */
	sealed interface Operation permits Add, AddAfter, Poll, Done, Step, ShutDown {

		void apply(DelayingQueue<String> queue, FakeClock clock, Model model) throws Exception;

	}

	record Add(String item) implements Operation {

		@Override
		public void apply(DelayingQueue<String> queue, FakeClock clock, Model model) {
			queue.add(this.item);
			model.add(this.item);
		}

	}

	record AddAfter(String item, long delayMillis) implements Operation {

		@Override
		public void apply(DelayingQueue<String> queue, FakeClock clock, Model model) {
			queue.addAfter(this.item, Duration.ofMillis(this.delayMillis));
			model.addAfter(this.item, this.delayMillis);
			// addAfter inserts the entry itself: the count is exact when it returns.
			assertThat(queue.stats().waiting()).isEqualTo(model.waiting.size());
		}

	}

	record Poll() implements Operation {

		@Override
		public void apply(DelayingQueue<String> queue, FakeClock clock, Model model) throws Exception {
			String item = queue.poll(Duration.ZERO);
			assertThat(model.expectedNext()).as("poll returned %s", item).contains(item);
			model.handOut(item);
		}

	}

	record Done(String item) implements Operation {

		@Override
		public void apply(DelayingQueue<String> queue, FakeClock clock, Model model) {
			queue.done(this.item);
			model.done(this.item);
		}

	}

	record Step(long millis) implements Operation {

		@Override
		public void apply(DelayingQueue<String> queue, FakeClock clock, Model model) {
			clock.step(Duration.ofMillis(this.millis));
			model.step(this.millis);
			// The owner thread moves what fell due into the queue shortly after the step.
			Await.until(() -> queue.stats().waiting() == model.waiting.size() && queue.size() == model.size());
		}

	}

	record ShutDown() implements Operation {

		@Override
		public void apply(DelayingQueue<String> queue, FakeClock clock, Model model) {
			queue.shutDown();
			model.shutDown();
			assertThat(queue.stats().waiting()).isZero();
		}

	}

	/**
	 * The rules, single-threaded. Ready items form groups in FIFO order; items that fell
	 * due at the same instant share a group, in which order is not specified.
	 */
	static final class Model {

		final List<List<String>> ready = new ArrayList<>();

		final Set<String> processing = new HashSet<>();

		final Set<String> dirty = new HashSet<>();

		final Map<String, Long> waiting = new HashMap<>();

		long nowMillis;

		boolean shutDown;

		int size() {
			return this.ready.stream().mapToInt(List::size).sum();
		}

		void add(String item) {
			if (!this.shutDown && queue(item)) {
				this.ready.add(new ArrayList<>(List.of(item)));
			}
		}

		/** Whether the item is to be appended: neither queued nor processing. */
		private boolean queue(String item) {
			if (this.ready.stream().anyMatch((group) -> group.contains(item))) {
				return false;
			}
			if (this.processing.contains(item)) {
				this.dirty.add(item);
				return false;
			}
			return true;
		}

		void addAfter(String item, long delayMillis) {
			if (this.shutDown) {
				return;
			}
			if (delayMillis <= 0) {
				add(item);
			}
			else {
				this.waiting.merge(item, this.nowMillis + delayMillis, Math::min);
			}
		}

		/** The items a poll may return now; {@code null} alone when none is ready. */
		List<String> expectedNext() {
			List<String> next = new ArrayList<>();
			next.add(null);
			return this.ready.isEmpty() ? next : this.ready.get(0);
		}

		void handOut(String item) {
			if (item != null) {
				List<String> head = this.ready.get(0);
				head.remove(item);
				if (head.isEmpty()) {
					this.ready.remove(0);
				}
				this.processing.add(item);
			}
		}

		void done(String item) {
			if (this.processing.remove(item) && this.dirty.remove(item)) {
				this.ready.add(new ArrayList<>(List.of(item)));
			}
		}

		void step(long millis) {
			this.nowMillis += millis;
			Map<Long, List<String>> dueByTime = new TreeMap<>();
			this.waiting.forEach((item, readyAt) -> {
				if (readyAt <= this.nowMillis) {
					dueByTime.computeIfAbsent(readyAt, (time) -> new ArrayList<>()).add(item);
				}
			});
			dueByTime.values().forEach((items) -> {
				items.sort(Comparator.naturalOrder());
				List<String> group = new ArrayList<>();
				for (String item : items) {
					this.waiting.remove(item);
					if (queue(item)) {
						group.add(item);
					}
				}
				if (!group.isEmpty()) {
					this.ready.add(group);
				}
			});
		}

		void shutDown() {
			this.shutDown = true;
			this.waiting.clear();
		}

	}

}
