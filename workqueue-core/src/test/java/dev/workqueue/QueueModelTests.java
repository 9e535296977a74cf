package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of operations on the in-memory engine over both ready orders (the
 * delaying queue alone or under a rate-limiting queue: FIFO; the priority queue, strict
 * or with a starvation timeout), with a {@link FakeClock}, from one thread, checked after
 * every operation against one reference model of the rules: client-go's delaying queue
 * (dedup, dirty items queued again on {@code done}, the earliest ready time of a waiting
 * item wins, waiting independent of being queued or processed, every {@code addAfter} a
 * retry) and contract §4 on top (highest priority first, FIFO within a priority, a raised
 * item to the back of its new level, the highest priority of the delayed and of the dirty
 * adds, starving items first in the order they became ready). A FIFO is the priority
 * model with every priority 0 and no starvation guard. Some runs shut down near their
 * end: then what waits is dropped, {@code add} (even of an item being processed) and
 * {@code addAfter} are ignored and not counted, and what is ready is still handed out
 * ({@code done} of a dirty item still queues it again).
 * <p>
 * <b>Due items are moved synchronously.</b> Every {@code add}, {@code addAfter},
 * {@code get}/{@code poll}, {@code size()}, {@code stats()}, {@code readyLevels()} and
 * the {@code done} of a dirty item first moves the items whose ready time the clock has
 * reached into the ready order, in ready-time order. So nothing here waits: after a clock
 * step, the very next of those calls sees the due items. A step is followed by
 * {@code size()} first, by {@code stats()} first, or by nothing (then the next
 * operation's own call must do the move). Another {@code done} and {@code shutDown} do
 * not move them.
 * <p>
 * <b>Ties.</b> Items due at the same instant line up in any order, so the model stamps
 * every line-up of one move with the same number, and a hand-out may be any item of the
 * best stamp. Delays and steps come from small sets of values on purpose, so such ties
 * are frequent.
 * <p>
 * At the end the clock jumps a day ahead and everything is drained; then the queue must
 * be empty, every item handed out as often as the model says, and (independently of the
 * model) every add followed by a hand-out, with no more hand-outs than adds.
 */
class QueueModelTests {

	private static final List<String> ITEMS = List.of("a", "b", "c", "d", "e");

	/** Delays of addAfter: the past, now, the shortest, and equal values on purpose. */
	private static final List<Duration> DELAYS = List.of(Duration.ofMillis(-1), Duration.ZERO, Duration.ofNanos(1),
			Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMillis(2),
			Duration.ofMillis(5));

	/** Clock steps, with 1 ns short of a millisecond to hit ready times exactly. */
	private static final List<Duration> STEPS = List.of(Duration.ZERO, Duration.ofNanos(1), Duration.ofNanos(999_999),
			Duration.ofMillis(1), Duration.ofMillis(2));

	/** Starvation timeouts of the priority queue; negative for none. */
	private static final List<Duration> STARVATION_TIMEOUTS = List.of(Duration.ofNanos(-1), Duration.ZERO,
			Duration.ofMillis(1), Duration.ofMillis(3));

	/** What the rate limiter says, for every item. */
	private static final Duration RATE_LIMITED_DELAY = Duration.ofMillis(1);

	/** More than any run's delays add up to. */
	private static final Duration FAR_FUTURE = Duration.ofDays(1);

	@Property(tries = 1500)
	@StatisticsReport(onFailureOnly = true)
	void queueBehavesLikeTheModel(@ForAll("kinds") QueueKind kind, @ForAll("starvationTimeouts") Duration starvation,
			@ForAll("operations") List<Operation> operations, @ForAll("shutDownPositions") int shutDownBeforeEnd)
			throws Exception {
		FakeClock clock = new FakeClock();
		boolean priorities = kind == QueueKind.PRIORITY;
		WorkQueues.Builder<String> builder = WorkQueues.<String>builder().clock(clock);
		long starvationNanos = (priorities) ? starvation.toNanos() : -1;
		if (starvationNanos >= 0) {
			builder.starvationTimeout(starvation);
		}
		// The limiter always says RATE_LIMITED_DELAY, so the model knows what
		// addRateLimited does.
		FixedDelayRateLimiter<String> limiter = new FixedDelayRateLimiter<>(RATE_LIMITED_DELAY);
		try (DelayingQueue<String> queue = switch (kind) {
			case PRIORITY -> builder.buildPriorityQueue(limiter);
			case RATE_LIMITING -> builder.buildRateLimitingQueue(limiter);
			default -> builder.buildDelayingQueue();
		}) {
			Run run = new Run(queue, clock, new Model(priorities, starvationNanos));
			int shutDownAt = (shutDownBeforeEnd < 0) ? -1 : Math.max(0, operations.size() - shutDownBeforeEnd);
			for (int i = 0; i < operations.size(); i++) {
				if (i == shutDownAt) {
					run.apply(new ShutDown());
				}
				run.apply(operations.get(i));
			}
			if (shutDownAt == operations.size()) {
				run.apply(new ShutDown());
			}
			run.drainAndCheckNothingIsLeft();
			// Ties must really be exercised, not avoided by the generators.
			Statistics.label("runs with a tie among the items a poll may return")
				.collect(run.tiedHandOuts > 0)
				.coverage((coverage) -> coverage.check(true).percentage((percent) -> percent >= 5));
			Statistics.label("queue")
				.collect(kind)
				.coverage((coverage) -> coverage.check(QueueKind.PRIORITY).percentage((percent) -> percent >= 20));
		}
	}

	@Provide
	Arbitrary<QueueKind> kinds() {
		return Arbitraries.of(QueueKind.DELAYING, QueueKind.RATE_LIMITING, QueueKind.PRIORITY, QueueKind.PRIORITY);
	}

	@Provide
	Arbitrary<Duration> starvationTimeouts() {
		return Arbitraries.of(STARVATION_TIMEOUTS);
	}

	@Provide
	Arbitrary<List<Operation>> operations() {
		Arbitrary<String> items = Arbitraries.of(ITEMS);
		Arbitrary<Integer> priorities = Arbitraries.integers().between(-2, 2);
		Arbitrary<Operation> operation = Arbitraries.frequencyOf(
				Tuple.of(4, Combinators.combine(items, priorities).as(Add::new)),
				Tuple.of(7, Combinators.combine(items, Arbitraries.of(DELAYS), priorities).as(AddAfter::new)),
				Tuple.of(1, Combinators.combine(items, priorities).as(AddRateLimited::new)),
				Tuple.of(6, Arbitraries.just(new Poll())),
				Tuple.of(4, Arbitraries.integers().between(0, ITEMS.size() - 1).map(DoneHeld::new)),
				Tuple.of(1, items.map(DoneAny::new)),
				Tuple.of(5, Combinators.combine(Arbitraries.of(STEPS), Arbitraries.of(Look.class)).as(Step::new)));
		return operation.list().ofMinSize(1).ofMaxSize(60);
	}

	/**
	 * Where to shut down: -1 for not at all (most runs), else that many before the end.
	 */
	@Provide
	Arbitrary<Integer> shutDownPositions() {
		return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(-1)),
				Tuple.of(1, Arbitraries.integers().between(0, 5)));
	}

	/** What the test looks at right after a clock step. */
	enum Look {

		/** {@code size()}, then {@code stats()}: {@code size()} must move due items. */
		SIZE_FIRST,

		/** {@code stats()}, then {@code size()}: {@code stats()} must move due items. */
		STATS_FIRST,

		/** Nothing: the next operation's own call must move due items. */
		NOTHING

	}

	/** An operation applied to the queue and the model alike. */
	sealed interface Operation permits Add, AddAfter, AddRateLimited, Poll, DoneHeld, DoneAny, Step, ShutDown {

		void apply(Run run) throws Exception;

	}

	/** {@code add}, with its priority on a priority queue. */
	record Add(String item, int priority) implements Operation {

		@Override
		public void apply(Run run) {
			int priority = run.model.priority(this.priority);
			run.log("add(%s, %d)", this.item, priority);
			run.recordAdd(this.item, false);
			if (run.queue instanceof PriorityQueue<String> priorityQueue) {
				priorityQueue.add(this.item, priority);
			}
			else {
				run.queue.add(this.item);
			}
			run.model.add(this.item, priority);
			run.check(Look.SIZE_FIRST);
		}

	}

	/** {@code addAfter}, with its priority on a priority queue. */
	record AddAfter(String item, Duration delay, int priority) implements Operation {

		@Override
		public void apply(Run run) {
			int priority = run.model.priority(this.priority);
			run.log("addAfter(%s, %s, %d)", this.item, nanos(this.delay), priority);
			run.recordAdd(this.item, this.delay.toNanos() > 0);
			if (run.queue instanceof PriorityQueue<String> priorityQueue) {
				priorityQueue.addAfter(this.item, this.delay, priority);
			}
			else {
				run.queue.addAfter(this.item, this.delay);
			}
			run.model.addAfter(this.item, this.delay.toNanos(), priority);
			run.check(Look.SIZE_FIRST);
		}

	}

	/**
	 * {@code addRateLimited} on the rate-limiting and priority queues: {@code addAfter}
	 * with the limiter's delay. The same {@code addAfter} on the delaying queue.
	 */
	record AddRateLimited(String item, int priority) implements Operation {

		@Override
		public void apply(Run run) {
			int priority = run.model.priority(this.priority);
			run.log("addRateLimited(%s, %d)", this.item, priority);
			run.recordAdd(this.item, true);
			if (run.queue instanceof PriorityQueue<String> priorityQueue) {
				priorityQueue.addRateLimited(this.item, priority);
			}
			else if (run.queue instanceof RateLimitingQueue<String> rateLimiting) {
				rateLimiting.addRateLimited(this.item);
			}
			else {
				run.queue.addAfter(this.item, RATE_LIMITED_DELAY);
			}
			run.model.addAfter(this.item, RATE_LIMITED_DELAY.toNanos(), priority);
			run.check(Look.SIZE_FIRST);
		}

	}

	record Poll() implements Operation {

		@Override
		public void apply(Run run) throws Exception {
			run.poll();
			run.check(Look.SIZE_FIRST);
		}

	}

	/** {@code done} of one of the items being processed, if any, picked by index. */
	record DoneHeld(int index) implements Operation {

		@Override
		public void apply(Run run) {
			List<String> held = run.model.processing();
			if (held.isEmpty()) {
				run.log("done(): nothing held");
				return;
			}
			run.done(held.get(this.index % held.size()));
		}

	}

	/** {@code done} of any item: a no-op unless it is being processed. */
	record DoneAny(String item) implements Operation {

		@Override
		public void apply(Run run) {
			run.done(this.item);
		}

	}

	record Step(Duration duration, Look look) implements Operation {

		@Override
		public void apply(Run run) {
			run.step(this.duration, this.look);
		}

	}

	record ShutDown() implements Operation {

		@Override
		public void apply(Run run) {
			run.log("shutDown()");
			run.queue.shutDown();
			run.model.shutDown();
			run.check(Look.SIZE_FIRST);
		}

	}

	/** One run: the queue, the model, the log of what was done, and a ledger of adds. */
	static final class Run {

		final DelayingQueue<String> queue;

		final FakeClock clock;

		final Model model;

		private final List<String> log = new ArrayList<>();

		/** Per item, the log position of its last add, of its last delayed add. */
		private final Map<String, Integer> lastAdd = new HashMap<>();

		private final Map<String, Integer> lastDelayedAdd = new HashMap<>();

		/** Per item, the log position of its last hand-out, and the counts. */
		private final Map<String, Integer> lastHandOut = new HashMap<>();

		private final Map<String, Integer> addCalls = new TreeMap<>();

		private final Map<String, Integer> handOuts = new TreeMap<>();

		int tiedHandOuts;

		Run(DelayingQueue<String> queue, FakeClock clock, Model model) {
			this.queue = queue;
			this.clock = clock;
			this.model = model;
		}

		void apply(Operation operation) throws Exception {
			operation.apply(this);
		}

		void log(String format, Object... args) {
			this.log.add(String.format("%3d  t=%-9s ", this.log.size(), nanos(this.clock.nanoTime()))
					+ String.format(format, args));
		}

		/** The assertion description: what was checked, and everything done so far. */
		private Supplier<String> context(String what) {
			return () -> String.format("%s on %s (model: %s)%nafter:%n%s%n", what, this.queue, this.model,
					String.join(System.lineSeparator(), this.log));
		}

		/** Keeps the ledger of add calls the queue does not ignore. */
		void recordAdd(String item, boolean delayed) {
			if (this.queue.isShuttingDown()) {
				return;
			}
			this.addCalls.merge(item, 1, Integer::sum);
			(delayed ? this.lastDelayedAdd : this.lastAdd).put(item, this.log.size() - 1);
		}

		String poll() throws Exception {
			Prioritized<String> next;
			if (this.queue instanceof PriorityQueue<String> priorityQueue) {
				next = priorityQueue.pollWithPriority(Duration.ZERO);
			}
			else {
				String item = this.queue.poll(Duration.ZERO);
				next = (item != null) ? new Prioritized<>(item, 0) : null;
			}
			Map<String, Integer> acceptable = this.model.acceptableNext();
			log("poll(0) -> %s   (acceptable: %s)", next, acceptable.isEmpty() ? "null" : acceptable);
			if (acceptable.isEmpty()) {
				assertThat(next).as(context("poll(0) with nothing ready")).isNull();
				return null;
			}
			assertThat(next).as(context("poll(0) with ready items")).isNotNull();
			assertThat(next.item()).as(context("poll(0) with ready items")).isIn(acceptable.keySet());
			assertThat(next.priority()).as(context("the priority of " + next.item()))
				.isEqualTo(acceptable.get(next.item()));
			if (acceptable.size() > 1) {
				this.tiedHandOuts++;
			}
			this.model.handOut(next.item());
			this.handOuts.merge(next.item(), 1, Integer::sum);
			this.lastHandOut.put(next.item(), this.log.size() - 1);
			return next.item();
		}

		void done(String item) {
			log("done(%s)", item);
			this.queue.done(item);
			this.model.done(item);
			check(Look.SIZE_FIRST);
		}

		void step(Duration duration, Look look) {
			this.clock.step(duration);
			this.model.step(duration.toNanos());
			log("step(%s), then look: %s", nanos(duration), look);
			check(look);
		}

		/** Compares the queue's figures with the model's. */
		void check(Look look) {
			if (look == Look.NOTHING) {
				return;
			}
			int size;
			WorkQueueStats stats;
			if (look == Look.SIZE_FIRST) {
				size = this.queue.size();
				stats = this.queue.stats();
			}
			else {
				stats = this.queue.stats();
				size = this.queue.size();
			}
			this.model.moveDueItems();
			assertThat(size).as(context("size()")).isEqualTo(this.model.readyCount());
			assertThat(stats.depth()).as(context("stats().depth()")).isEqualTo(this.model.readyCount());
			assertThat(stats.processing()).as(context("stats().processing()"))
				.isEqualTo(this.model.processing().size());
			assertThat(stats.waiting()).as(context("stats().waiting()")).isEqualTo(this.model.waitingCount());
			assertThat(stats.retries()).as(context("stats().retries()")).isEqualTo(this.model.retries);
			assertThat(stats.addedWhileProcessing()).as(context("stats().addedWhileProcessing()"))
				.isEqualTo(this.model.dirtyCount());
			assertThat(stats.pending()).as(context("stats().pending()"))
				.isEqualTo(this.model.readyCount() + this.model.dirtyCount());
			assertThat(this.queue.isShuttingDown()).as(context("isShuttingDown()")).isEqualTo(this.model.shutDown);
			if (this.queue instanceof PriorityQueue<String> priorityQueue) {
				assertThat(priorityQueue.readyLevels()).as(context("readyLevels()")).isEqualTo(this.model.levels());
			}
		}

		/**
		 * Jumps far ahead, drains the queue (polling all that is ready, then finishing
		 * all that is held, until neither is left), then checks that nothing is left and
		 * that every add was served.
		 */
		void drainAndCheckNothingIsLeft() throws Exception {
			log("--- drain ---");
			step(FAR_FUTURE, Look.NOTHING);
			int rounds = 0;
			while (true) {
				assertThat(rounds++).as(context("drain rounds (the queue keeps handing out)")).isLessThan(100);
				while (poll() != null) {
					check(Look.SIZE_FIRST);
				}
				if (this.model.processing().isEmpty()) {
					break;
				}
				for (String item : this.model.processing()) {
					done(item);
				}
			}
			check(Look.STATS_FIRST);
			WorkQueueStats stats = this.queue.stats();
			assertThat(this.queue.size()).as(context("size() after the drain")).isZero();
			assertThat(stats.waiting()).as(context("stats().waiting() after the drain")).isZero();
			assertThat(stats.processing()).as(context("stats().processing() after the drain")).isZero();
			assertThat(stats.addedWhileProcessing()).as(context("stats().addedWhileProcessing() after the drain"))
				.isZero();
			assertThat(QueueKind.engine(this.queue).trackedItems()).as(context("items tracked after the drain"))
				.isZero();
			assertThat(this.handOuts).as(context("hand-outs per item")).isEqualTo(this.model.handOuts);
			// Independent of the model: every add is followed by a hand-out (a delayed
			// add only in runs without shutdown, which drops what waits), and every
			// hand-out takes at least one add.
			this.lastAdd.forEach((item, at) -> assertThat(this.lastHandOut.getOrDefault(item, -1))
				.as(context("position of the last hand-out of " + item + ", added at " + at))
				.isGreaterThan(at));
			if (!this.model.shutDown) {
				this.lastDelayedAdd.forEach((item, at) -> assertThat(this.lastHandOut.getOrDefault(item, -1))
					.as(context("position of the last hand-out of " + item + ", added with a delay at " + at))
					.isGreaterThan(at));
			}
			this.handOuts.forEach((item, count) -> assertThat(count)
				.as(context("hand-outs of " + item + " against its adds " + this.addCalls))
				.isLessThanOrEqualTo(this.addCalls.getOrDefault(item, 0)));
		}

	}

	/**
	 * The rules, single-threaded, by brute force: every item's state in a map, the next
	 * hand-out found by a scan. Each line-up takes a stamp from a counter, except that
	 * the line-ups of one move of items due at one instant share one, as their order is
	 * not specified.
	 */
	static final class Model {

		private final Map<String, Item> items = new TreeMap<>();

		private final boolean priorities;

		/** Negative: strict priority. */
		private final long starvationNanos;

		final Map<String, Integer> handOuts = new TreeMap<>();

		private long nowNanos;

		private long stamps;

		long retries;

		boolean shutDown;

		Model(boolean priorities, long starvationNanos) {
			this.priorities = priorities;
			this.starvationNanos = starvationNanos;
		}

		/** The priority the queue sees: 0 on a queue without priorities. */
		int priority(int generated) {
			return this.priorities ? generated : 0;
		}

		int readyCount() {
			return (int) this.items.values().stream().filter((item) -> item.ready).count();
		}

		/** Handed out and not done. */
		List<String> processing() {
			return this.items.values().stream().filter((item) -> item.processing).map((item) -> item.name).toList();
		}

		int dirtyCount() {
			return (int) this.items.values().stream().filter((item) -> item.dirty).count();
		}

		int waitingCount() {
			return (int) this.items.values().stream().filter((item) -> item.waits).count();
		}

		/** Only the clock moves: the queue moves due items on its next call. */
		void step(long nanos) {
			this.nowNanos += nanos;
		}

		/**
		 * What every add, addAfter, get/poll, size(), stats() and a dirty done does
		 * first: add each item whose ready time has come, earliest first, as if added
		 * then; the line-ups of items due at one instant share a stamp.
		 */
		void moveDueItems() {
			TreeMap<Long, List<Item>> due = new TreeMap<>();
			this.items.values()
				.stream()
				.filter((item) -> item.waits && item.dueNanos <= this.nowNanos)
				.forEach((item) -> due.computeIfAbsent(item.dueNanos, (time) -> new ArrayList<>()).add(item));
			due.forEach((dueNanos, group) -> {
				long stamp = this.stamps++;
				for (Item item : group) {
					item.waits = false;
					admit(item, item.waitPriority, dueNanos, stamp);
				}
			});
		}

		/**
		 * The rules of an add: dirty (with the highest priority) while processing, raised
		 * to the back of its new level while ready, ready otherwise (with the priority of
		 * its delayed adds too, if one is pending).
		 */
		private void admit(Item item, int priority, long readySinceNanos, long stamp) {
			if (item.processing) {
				item.dirtyPriority = item.dirty ? Math.max(item.dirtyPriority, priority) : priority;
				item.dirty = true;
			}
			else if (item.ready) {
				if (priority > item.priority) {
					item.priority = priority;
					item.levelStamp = stamp;
				}
			}
			else {
				lineUp(item, item.waits ? Math.max(priority, item.waitPriority) : priority, readySinceNanos, stamp);
			}
		}

		private void lineUp(Item item, int priority, long readySinceNanos, long stamp) {
			item.ready = true;
			item.priority = priority;
			item.readySinceNanos = readySinceNanos;
			item.readyStamp = stamp;
			item.levelStamp = stamp;
		}

		void add(String name, int priority) {
			moveDueItems();
			if (!this.shutDown) {
				admit(item(name), priority, this.nowNanos, this.stamps++);
			}
		}

		void addAfter(String name, long delayNanos, int priority) {
			moveDueItems();
			if (this.shutDown) {
				return;
			}
			this.retries++;
			if (delayNanos <= 0) {
				add(name, priority);
				return;
			}
			Item item = item(name);
			long dueNanos = this.nowNanos + delayNanos;
			if (!item.waits) {
				item.waits = true;
				item.dueNanos = dueNanos;
				item.waitPriority = priority;
			}
			else {
				item.dueNanos = Math.min(item.dueNanos, dueNanos);
				item.waitPriority = Math.max(item.waitPriority, priority);
			}
		}

		private Item item(String name) {
			return this.items.computeIfAbsent(name, Item::new);
		}

		/**
		 * The items a poll may return now, with their priorities; none when it must
		 * return {@code null}. Starving items first, by the order they became ready; else
		 * the highest priority, by the order they lined up in it.
		 */
		Map<String, Integer> acceptableNext() {
			moveDueItems();
			List<Item> ready = this.items.values().stream().filter((item) -> item.ready).toList();
			List<Item> starving = ready.stream()
				.filter((item) -> this.starvationNanos >= 0
						&& this.nowNanos - item.readySinceNanos > this.starvationNanos)
				.toList();
			List<Item> best;
			if (!starving.isEmpty()) {
				long first = starving.stream().mapToLong((item) -> item.readyStamp).min().getAsLong();
				best = starving.stream().filter((item) -> item.readyStamp == first).toList();
			}
			else {
				Comparator<Item> byLevel = Comparator.<Item>comparingInt((item) -> -item.priority)
					.thenComparingLong((item) -> item.levelStamp);
				best = ready.stream()
					.min(byLevel)
					.map((first) -> ready.stream().filter((item) -> byLevel.compare(item, first) == 0).toList())
					.orElse(List.of());
			}
			return best.stream().collect(Collectors.toMap((item) -> item.name, (item) -> item.priority));
		}

		void handOut(String name) {
			Item item = this.items.get(name);
			item.ready = false;
			item.processing = true;
			this.handOuts.merge(name, 1, Integer::sum);
		}

		/** A no-op for an item not being processed; a move point if it is dirty. */
		void done(String name) {
			Item item = this.items.get(name);
			if (item == null || !item.processing) {
				return;
			}
			if (item.dirty) {
				moveDueItems();
			}
			item.processing = false;
			if (item.dirty) {
				item.dirty = false;
				lineUp(item, item.waits ? Math.max(item.dirtyPriority, item.waitPriority) : item.dirtyPriority,
						this.nowNanos, this.stamps++);
			}
		}

		void shutDown() {
			this.shutDown = true;
			this.items.values().forEach((item) -> item.waits = false);
		}

		/**
		 * The ready items per priority, highest first, with the age of the oldest (-1
		 * when the queue tracks no ready times: no starvation guard, no metrics).
		 */
		List<Level> levels() {
			moveDueItems();
			TreeMap<Integer, List<Item>> byPriority = new TreeMap<>(Comparator.reverseOrder());
			this.items.values()
				.stream()
				.filter((item) -> item.ready)
				.forEach((item) -> byPriority.computeIfAbsent(item.priority, (key) -> new ArrayList<>()).add(item));
			List<Level> levels = new ArrayList<>();
			byPriority.forEach((priority, ready) -> levels
				.add(new Level(priority, ready.size(), (this.starvationNanos < 0) ? -1
						: ready.stream().mapToLong((item) -> this.nowNanos - item.readySinceNanos).max().getAsLong())));
			return levels;
		}

		@Override
		public String toString() {
			return "t=" + nanos(this.nowNanos) + " items=" + this.items.values() + " retries=" + this.retries
					+ (this.shutDown ? " shut down" : "");
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

		int waitPriority;

		long readySinceNanos;

		/** The order it became ready in, and the order it lined up in its level. */
		long readyStamp;

		long levelStamp;

		long dueNanos;

		Item(String name) {
			this.name = name;
		}

		@Override
		public String toString() {
			return this.name
					+ (this.ready ? " ready(p" + this.priority + ", since " + nanos(this.readySinceNanos) + ", #"
							+ this.readyStamp + "/" + this.levelStamp + ")" : "")
					+ (this.processing ? " processing" : "") + (this.dirty ? " dirty(p" + this.dirtyPriority + ")" : "")
					+ (this.waits ? " waits(" + nanos(this.dueNanos) + ", p" + this.waitPriority + ")" : "");
		}

	}

	private static String nanos(Duration duration) {
		return nanos(duration.toNanos());
	}

	/** Nanoseconds as {@code 1ms}, {@code 999999ns}, {@code -1ms}: short and exact. */
	private static String nanos(long nanos) {
		if (nanos != 0 && nanos % 1_000_000 == 0) {
			return (nanos / 1_000_000) + "ms";
		}
		return nanos + "ns";
	}

}
