package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of operations on the in-memory delaying queue (alone, or under a
 * rate-limiting queue) with a {@link FakeClock}, from one thread, checked after every
 * operation against a reference model of client-go's delaying queue: FIFO with dedup,
 * dirty items queued again on {@code done}, the earliest ready time of a waiting item
 * wins, waiting independent of being queued or processed, every {@code addAfter} a retry.
 * Some runs shut down near their end: then what waits is dropped, {@code add} (even of an
 * item being processed) and {@code addAfter} are ignored and not counted, and what is
 * ready is still handed out ({@code done} of a dirty item still queues it again).
 * <p>
 * <b>Due items are moved synchronously.</b> Every {@code add}, {@code addAfter},
 * {@code get}/{@code poll}, {@code size()} and {@code stats()} first moves the items
 * whose ready time the clock has reached into the ready FIFO, in ready-time order. So
 * nothing here waits: after a clock step, the very next of those calls sees the due
 * items. A step is followed by {@code size()} first, by {@code stats()} first, or by
 * nothing (then the next operation's own call must do the move). {@code done} and
 * {@code shutDown} are not among those calls: when the order of their effect against a
 * pending move would matter, the test first settles the move with {@code size()}.
 * <p>
 * <b>Ties.</b> Items due at the same instant may enter the FIFO in any order, so the
 * model's FIFO is a list of groups: items that fell due together in one move share a
 * group, and a hand-out may be any item of the first group. Delays and steps come from
 * small sets of values on purpose, so such ties are frequent.
 * <p>
 * At the end the clock jumps a day ahead and everything is drained; then the queue must
 * be empty, every item handed out as often as the model says, and (independently of the
 * model) every add followed by a hand-out, with no more hand-outs than adds.
 */
class DelayingQueueModelProperties {

	private static final List<String> ITEMS = List.of("a", "b", "c", "d", "e");

	/** Delays of addAfter: the past, now, the shortest, and equal values on purpose. */
	private static final List<Duration> DELAYS = List.of(Duration.ofMillis(-1), Duration.ZERO, Duration.ofNanos(1),
			Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMillis(2));

	/** Clock steps, with 1 ns short of a millisecond to hit ready times exactly. */
	private static final List<Duration> STEPS = List.of(Duration.ZERO, Duration.ofNanos(1), Duration.ofNanos(999_999),
			Duration.ofMillis(1), Duration.ofMillis(2));

	/** What the rate limiter of the rate-limiting queue says, for every item. */
	private static final Duration RATE_LIMITED_DELAY = Duration.ofMillis(1);

	/** More than any run's delays add up to. */
	private static final Duration FAR_FUTURE = Duration.ofDays(1);

	@Property(tries = 1000)
	@StatisticsReport(onFailureOnly = true)
	void delayingQueueBehavesLikeTheModel(@ForAll boolean rateLimiting,
			@ForAll("operations") List<Operation> operations, @ForAll("shutDownPositions") int shutDownBeforeEnd)
			throws Exception {
		FakeClock clock = new FakeClock();
		WorkQueues.Builder<String> builder = WorkQueues.<String>builder().clock(clock);
		// The limiter always says RATE_LIMITED_DELAY, so the model knows what
		// addRateLimited does.
		try (DelayingQueue<String> queue = rateLimiting
				? builder.buildRateLimitingQueue(new FixedDelayRateLimiter<>(RATE_LIMITED_DELAY))
				: builder.buildDelayingQueue()) {
			Run run = new Run(queue, clock);
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
		}
	}

	@Provide
	Arbitrary<List<Operation>> operations() {
		Arbitrary<String> items = Arbitraries.of(ITEMS);
		Arbitrary<Operation> operation = Arbitraries.frequencyOf(Tuple.of(4, items.map(Add::new)),
				Tuple.of(7, Combinators.combine(items, Arbitraries.of(DELAYS)).as(AddAfter::new)),
				Tuple.of(1, items.map(AddRateLimited::new)), Tuple.of(6, Arbitraries.just(new Poll())),
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

	record Add(String item) implements Operation {

		@Override
		public void apply(Run run) {
			run.log("add(%s)", this.item);
			run.recordAdd(this.item, false);
			run.queue.add(this.item);
			run.model.add(this.item);
			run.check(Look.SIZE_FIRST);
		}

	}

	record AddAfter(String item, Duration delay) implements Operation {

		@Override
		public void apply(Run run) {
			run.log("addAfter(%s, %s)", this.item, nanos(this.delay));
			run.recordAdd(this.item, this.delay.toNanos() > 0);
			run.queue.addAfter(this.item, this.delay);
			run.model.addAfter(this.item, this.delay.toNanos());
			run.check(Look.SIZE_FIRST);
		}

	}

	/**
	 * {@code addRateLimited} on the rate-limiting queue: {@code addAfter} with the
	 * limiter's delay. The same {@code addAfter} on the delaying queue.
	 */
	record AddRateLimited(String item) implements Operation {

		@Override
		public void apply(Run run) {
			run.log("addRateLimited(%s)", this.item);
			run.recordAdd(this.item, true);
			if (run.queue instanceof RateLimitingQueue<String> rateLimiting) {
				rateLimiting.addRateLimited(this.item);
			}
			else {
				run.queue.addAfter(this.item, RATE_LIMITED_DELAY);
			}
			run.model.addAfter(this.item, RATE_LIMITED_DELAY.toNanos());
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
			List<String> held = List.copyOf(run.model.processing);
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
			// Whether shutDown moves due items before it drops what waits is not said:
			// settle the move first.
			run.settleDueItems(run.model.hasDueItems());
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

		final Model model = new Model();

		private final List<String> log = new ArrayList<>();

		/** Per item, the log position of its last add, of its last delayed add. */
		private final Map<String, Integer> lastAdd = new HashMap<>();

		private final Map<String, Integer> lastDelayedAdd = new HashMap<>();

		/** Per item, the log position of its last hand-out, and the counts. */
		private final Map<String, Integer> lastHandOut = new HashMap<>();

		private final Map<String, Integer> addCalls = new TreeMap<>();

		private final Map<String, Integer> handOuts = new TreeMap<>();

		int tiedHandOuts;

		Run(DelayingQueue<String> queue, FakeClock clock) {
			this.queue = queue;
			this.clock = clock;
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
			return () -> String.format("%s (model: %s)%nafter:%n%s%n", what, this.model,
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
			String item = this.queue.poll(Duration.ZERO);
			Set<String> acceptable = this.model.acceptableNext();
			log("poll(0) -> %s   (acceptable: %s)", item, acceptable.isEmpty() ? "null" : acceptable);
			if (acceptable.isEmpty()) {
				assertThat(item).as(context("poll(0) with nothing ready")).isNull();
				return null;
			}
			assertThat(item).as(context("poll(0) with ready items")).isNotNull().isIn(acceptable);
			if (acceptable.size() > 1) {
				this.tiedHandOuts++;
			}
			this.model.handOut(item);
			this.handOuts.merge(item, 1, Integer::sum);
			this.lastHandOut.put(item, this.log.size() - 1);
			return item;
		}

		void done(String item) {
			// Whether done moves due items first is not said, and that decides whether
			// an item being processed that fell due is dirty, and where it lines up:
			// settle the move first when it would matter.
			settleDueItems(this.model.hasDueItems() && this.model.processing.contains(item));
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

		void settleDueItems(boolean needed) {
			if (needed) {
				log("size() -> %d   (settles the due items first)", this.queue.size());
				this.model.moveDueItems();
			}
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
			assertThat(stats.processing()).as(context("stats().processing()")).isEqualTo(this.model.processing.size());
			assertThat(stats.waiting()).as(context("stats().waiting()")).isEqualTo(this.model.waiting.size());
			assertThat(stats.retries()).as(context("stats().retries()")).isEqualTo(this.model.retries);
			assertThat(stats.addedWhileProcessing()).as(context("stats().addedWhileProcessing()"))
				.isEqualTo(this.model.dirty.size());
			assertThat(stats.pending()).as(context("stats().pending()"))
				.isEqualTo(this.model.readyCount() + this.model.dirty.size());
			assertThat(this.queue.isShuttingDown()).as(context("isShuttingDown()")).isEqualTo(this.model.shutDown);
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
				if (this.model.processing.isEmpty()) {
					break;
				}
				for (String item : List.copyOf(this.model.processing)) {
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
	 * The rules, single-threaded, by brute force. The ready FIFO is a list of groups:
	 * items that fell due at the same instant in one move share a group, in which order
	 * is not specified; every other group holds one item.
	 */
	static final class Model {

		private final List<Set<String>> ready = new ArrayList<>();

		/** Handed out and not done, in hand-out order. */
		final Set<String> processing = new LinkedHashSet<>();

		/** Processing and added again. */
		final Set<String> dirty = new HashSet<>();

		/** Waiting items and their ready times. */
		final Map<String, Long> waiting = new TreeMap<>();

		final Map<String, Integer> handOuts = new TreeMap<>();

		private long nowNanos;

		long retries;

		boolean shutDown;

		int readyCount() {
			return this.ready.stream().mapToInt(Set::size).sum();
		}

		boolean hasDueItems() {
			return this.waiting.values().stream().anyMatch((readyAt) -> readyAt <= this.nowNanos);
		}

		/** Only the clock moves: the queue moves due items on its next call. */
		void step(long nanos) {
			this.nowNanos += nanos;
		}

		/**
		 * What every add, addAfter, get/poll, size() and stats() does first: add each
		 * item whose ready time has come, earliest first; those due at one instant form
		 * one group.
		 */
		void moveDueItems() {
			TreeMap<Long, List<String>> due = new TreeMap<>();
			this.waiting.forEach((item, readyAt) -> {
				if (readyAt <= this.nowNanos) {
					due.computeIfAbsent(readyAt, (time) -> new ArrayList<>()).add(item);
				}
			});
			due.values().forEach((items) -> {
				Set<String> group = new LinkedHashSet<>();
				for (String item : items) {
					this.waiting.remove(item);
					if (admit(item)) {
						group.add(item);
					}
				}
				if (!group.isEmpty()) {
					this.ready.add(group);
				}
			});
		}

		/**
		 * The dedup rule of an add: whether the item is to be appended (neither queued
		 * nor processing); an item being processed is marked dirty instead.
		 */
		private boolean admit(String item) {
			if (this.ready.stream().anyMatch((group) -> group.contains(item))) {
				return false;
			}
			if (this.processing.contains(item)) {
				this.dirty.add(item);
				return false;
			}
			return true;
		}

		private void append(String item) {
			this.ready.add(new LinkedHashSet<>(List.of(item)));
		}

		void add(String item) {
			moveDueItems();
			if (!this.shutDown && admit(item)) {
				append(item);
			}
		}

		void addAfter(String item, long delayNanos) {
			moveDueItems();
			if (this.shutDown) {
				return;
			}
			this.retries++;
			if (delayNanos <= 0) {
				add(item);
			}
			else {
				this.waiting.merge(item, this.nowNanos + delayNanos, Math::min);
			}
		}

		/** The items a poll may return now; none when it must return {@code null}. */
		Set<String> acceptableNext() {
			moveDueItems();
			return this.ready.isEmpty() ? Set.of() : Set.copyOf(this.ready.get(0));
		}

		void handOut(String item) {
			Set<String> head = this.ready.get(0);
			head.remove(item);
			if (head.isEmpty()) {
				this.ready.remove(0);
			}
			this.processing.add(item);
			this.handOuts.merge(item, 1, Integer::sum);
		}

		/** Not a move point; a no-op for an item not being processed. */
		void done(String item) {
			if (this.processing.remove(item) && this.dirty.remove(item)) {
				append(item);
			}
		}

		void shutDown() {
			this.shutDown = true;
			this.waiting.clear();
		}

		@Override
		public String toString() {
			Map<String, String> waitingAt = new TreeMap<>();
			this.waiting.forEach((item, readyAt) -> waitingAt.put(item, nanos(readyAt)));
			return "t=" + nanos(this.nowNanos) + " ready=" + this.ready + " processing=" + this.processing + " dirty="
					+ this.dirty + " waiting=" + waitingAt + " retries=" + this.retries
					+ (this.shutDown ? " shut down" : "");
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
