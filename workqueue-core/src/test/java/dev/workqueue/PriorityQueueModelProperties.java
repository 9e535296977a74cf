package dev.workqueue;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of operations on a priority queue with a {@link FakeClock}, from one
 * thread, checked step by step against a simple reference model of the rules (contract §4
 * on top of §1): every hand-out must be exactly the model's next, with its priority.
 */
class PriorityQueueModelProperties {

	@Property(tries = 300)
	void priorityQueueBehavesLikeTheModel(@ForAll("operations") List<Operation> operations,
			@ForAll @IntRange(min = -1, max = 20) int starvationMillis) throws Exception {
		FakeClock clock = new FakeClock();
		WorkQueues.Builder<String> builder = WorkQueues.<String>builder().clock(clock);
		if (starvationMillis >= 0) {
			builder.starvationTimeout(Duration.ofMillis(starvationMillis));
		}
		Model model = new Model(starvationMillis);
		try (PriorityQueue<String> queue = builder
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(1), Duration.ofMillis(8)))) {
			for (Operation operation : operations) {
				operation.apply(queue, clock, model);
				assertThat(queue.size()).as("size after %s", operation).isEqualTo(model.ready());
				assertThat(queue.stats().processing()).as("processing after %s", operation)
					.isEqualTo(model.processing());
				assertThat(queue.stats().waiting()).as("waiting after %s", operation).isEqualTo(model.waiting());
			}
		}
	}

	@Provide
	Arbitrary<List<Operation>> operations() {
		Arbitrary<String> items = Arbitraries.of("a", "b", "c", "d", "e");
		Arbitrary<Integer> priorities = Arbitraries.integers().between(-2, 2);
		Arbitrary<Operation> operation = Arbitraries.frequencyOf(
				Tuple.of(5, Combinators.combine(items, priorities).as(Add::new)),
				Tuple.of(4,
						Combinators.combine(items, Arbitraries.longs().between(-2, 30), priorities).as(AddAfter::new)),
				Tuple.of(6, Arbitraries.just(new Poll())), Tuple.of(4, items.map(Done::new)),
				Tuple.of(3, Arbitraries.longs().between(0, 15).map(Step::new)),
				Tuple.of(1, Arbitraries.just(new ShutDown())));
		return operation.list().ofMinSize(1).ofMaxSize(60);
	}

	/** An operation applied to the queue and the model alike. */
	sealed interface Operation permits Add, AddAfter, Poll, Done, Step, ShutDown {

		void apply(PriorityQueue<String> queue, FakeClock clock, Model model) throws Exception;

	}

	record Add(String item, int priority) implements Operation {

		@Override
		public void apply(PriorityQueue<String> queue, FakeClock clock, Model model) {
			queue.add(this.item, this.priority);
			model.add(this.item, this.priority);
		}

	}

	record AddAfter(String item, long delayMillis, int priority) implements Operation {

		@Override
		public void apply(PriorityQueue<String> queue, FakeClock clock, Model model) {
			queue.addAfter(this.item, Duration.ofMillis(this.delayMillis), this.priority);
			model.addAfter(this.item, this.delayMillis, this.priority);
		}

	}

	record Poll() implements Operation {

		@Override
		public void apply(PriorityQueue<String> queue, FakeClock clock, Model model) throws Exception {
			Prioritized<String> next = queue.pollWithPriority(Duration.ZERO);
			assertThat(Optional.ofNullable(next)).isEqualTo(model.next());
		}

	}

	record Done(String item) implements Operation {

		@Override
		public void apply(PriorityQueue<String> queue, FakeClock clock, Model model) {
			queue.done(this.item);
			model.done(this.item);
		}

	}

	record Step(long millis) implements Operation {

		@Override
		public void apply(PriorityQueue<String> queue, FakeClock clock, Model model) {
			clock.step(Duration.ofMillis(this.millis));
			model.step(this.millis);
		}

	}

	record ShutDown() implements Operation {

		@Override
		public void apply(PriorityQueue<String> queue, FakeClock clock, Model model) {
			queue.shutDown();
			model.shutDown();
		}

	}

	/**
	 * The rules, by brute force: every item's state in a map, the next hand-out found by
	 * a scan. Orders are counters, so ties are decided exactly as the rules say.
	 */
	static final class Model {

		private final Map<String, Item> items = new HashMap<>();

		private final int starvationMillis;

		private long nowMillis;

		private long orders;

		private boolean shutDown;

		Model(int starvationMillis) {
			this.starvationMillis = starvationMillis;
		}

		int ready() {
			return (int) this.items.values().stream().filter((item) -> item.ready).count();
		}

		int processing() {
			return (int) this.items.values().stream().filter((item) -> item.processing).count();
		}

		int waiting() {
			return (int) this.items.values().stream().filter((item) -> item.waits).count();
		}

		void add(String name, int priority) {
			if (!this.shutDown) {
				add(this.items.computeIfAbsent(name, Item::new), priority);
			}
		}

		private void add(Item item, int priority) {
			add(item, priority, this.nowMillis);
		}

		private void add(Item item, int priority, long readyAtMillis) {
			if (item.processing) {
				item.dirtyPriority = item.dirty ? Math.max(item.dirtyPriority, priority) : priority;
				item.dirty = true;
			}
			else if (item.ready) {
				if (priority > item.priority) {
					item.priority = priority;
					item.levelOrder = this.orders++;
				}
			}
			else {
				makeReady(item, item.waits ? Math.max(priority, item.duePriority) : priority, readyAtMillis);
			}
		}

		private void makeReady(Item item, int priority, long readyAtMillis) {
			item.ready = true;
			item.priority = priority;
			item.readyAtMillis = readyAtMillis;
			item.readyOrder = this.orders;
			item.levelOrder = this.orders++;
		}

		void addAfter(String name, long delayMillis, int priority) {
			if (this.shutDown) {
				return;
			}
			Item item = this.items.computeIfAbsent(name, Item::new);
			if (delayMillis <= 0) {
				add(item, priority);
				return;
			}
			long due = this.nowMillis + delayMillis;
			if (!item.waits) {
				item.waits = true;
				item.dueMillis = due;
				item.duePriority = priority;
				item.waitOrder = this.orders++;
			}
			else {
				item.duePriority = Math.max(item.duePriority, priority);
				if (due < item.dueMillis) {
					item.dueMillis = due;
					item.waitOrder = this.orders++;
				}
			}
		}

		void step(long millis) {
			this.nowMillis += millis;
			this.items.values()
				.stream()
				.filter((item) -> item.waits && item.dueMillis <= this.nowMillis)
				.sorted(Comparator.<Item>comparingLong((item) -> item.dueMillis)
					.thenComparingLong((item) -> item.waitOrder))
				.toList()
				.forEach((item) -> {
					item.waits = false;
					// Ready since it fell due, lined up in due order before anything
					// later.
					add(item, item.duePriority, item.dueMillis);
				});
			forgetIdle();
		}

		Optional<Prioritized<String>> next() {
			Comparator<Item> byPriority = Comparator.<Item>comparingInt((item) -> -item.priority)
				.thenComparingLong((item) -> item.levelOrder);
			Optional<Item> starving = this.items.values()
				.stream()
				.filter((item) -> item.ready && this.starvationMillis >= 0
						&& this.nowMillis - item.readyAtMillis > this.starvationMillis)
				.min(Comparator.comparingLong((item) -> item.readyOrder));
			Optional<Item> next = starving
				.or(() -> this.items.values().stream().filter((item) -> item.ready).min(byPriority));
			next.ifPresent((item) -> {
				item.ready = false;
				item.processing = true;
			});
			return next.map((item) -> new Prioritized<>(item.name, item.priority));
		}

		void done(String name) {
			Item item = this.items.get(name);
			if (item == null || !item.processing) {
				return;
			}
			item.processing = false;
			if (item.dirty) {
				item.dirty = false;
				makeReady(item, item.waits ? Math.max(item.dirtyPriority, item.duePriority) : item.dirtyPriority,
						this.nowMillis);
			}
			forgetIdle();
		}

		void shutDown() {
			this.shutDown = true;
			this.items.values().forEach((item) -> item.waits = false);
			forgetIdle();
		}

		private void forgetIdle() {
			this.items.values().removeIf((item) -> !item.ready && !item.processing && !item.waits);
		}

	}

	/** One item's state in the model. */
	static final class Item {

		final String name;

		boolean ready;

		boolean processing;

		boolean dirty;

		boolean waits;

		int priority;

		int dirtyPriority;

		int duePriority;

		long readyAtMillis;

		long readyOrder;

		long levelOrder;

		long dueMillis;

		long waitOrder;

		Item(String name) {
			this.name = name;
		}

	}

}
