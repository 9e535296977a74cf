package dev.workqueue.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.WorkQueues;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.spi.SharedPriorityQueue;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The handle's own rules, over a store that only records what it is asked: what an add
 * checks before the store, where and when it counts, an add that races the shutdown, the
 * stats it assembles, the order of the shutdown and the health it reports.
 */
class SharedStoreQueueTests {

	private static final long LEASE_NANOS = Duration.ofSeconds(30).toNanos();

	private final FakeClock clock = new FakeClock();

	/** What the store was asked and what the hook was told, in order, with the thread. */
	private final List<String> events = new CopyOnWriteArrayList<>();

	private final FakeStore store = new FakeStore();

	private final LeaseBook<String, TestLease> book = new LeaseBook<>();

	private final HandleLifecycle lifecycle = new HandleLifecycle(() -> {
	});

	private final ReadySignal signal = new ReadySignal(this.clock,
			StoreWakeups.everyNotice(StoreWakeups.NO_TIMED_LOOKS), null);

	private final WorkQueueMetrics metrics = new WorkQueueMetrics() {

		@Override
		public void added() {
			SharedStoreQueueTests.this.events.add("added on " + Thread.currentThread().getName());
		}

		@Override
		public void retried() {
			SharedStoreQueueTests.this.events.add("retried");
		}

	};

	private final LeaseReleases<String, TestLease> releases = new LeaseReleases<>(this.store, this.book, this.lifecycle,
			this.metrics, this.clock, () -> {
			});

	private final TimedWork<TestLease, String> work = new TimedWork<>(this.store, this.book, this.lifecycle,
			this.metrics, Runnable::run, this.clock, () -> {
			}, System.getLogger(SharedStoreQueueTests.class.getName()), "Queue 'q'", "Queue 'q' works", LEASE_NANOS,
			LEASE_NANOS / 3);

	private final SharedStoreQueue<String, TestLease> queue = new SharedStoreQueue<>("q", ItemCodec.strings(),
			this.store, this.clock, this.metrics, this.book, this.signal, this.lifecycle,
			new ItemTaker<>(ItemCodec.strings(), this.store, this.book, this.releases, this.signal, this.lifecycle,
					this.metrics, this.clock, LEASE_NANOS),
			this.releases, this.work, null);

	@Test
	void theHandleAndTheQueuesWrappingItFindTheStoresInspector() {
		QueueInspector inspector = this.queue.capability(QueueInspector.class).orElseThrow();
		inspector.keepGivenUp("x", 2, "boom");
		assertThat(this.store.inspection.givenUpCount()).isOne();
		assertThat(new SharedPriorityQueue<>(this.queue, RateLimiters.defaultControllerRateLimiter(), "q")
			.capability(QueueInspector.class)).containsSame(inspector);
		assertThat(WorkQueues.rateLimiting(this.queue, RateLimiters.defaultControllerRateLimiter())
			.capability(QueueInspector.class)).containsSame(inspector);
	}

	@Test
	void anAddCountsWhatItsStoreCallAddedOnTheAddingThreadAfterTheCall() throws Exception {
		// A grouped write counts the whole group's new items on one of its adds.
		this.store.added = 2;
		CompletableFuture.runAsync(() -> this.queue.add("x"), (task) -> new Thread(task, "adder").start())
			.get(5, TimeUnit.SECONDS);
		assertThat(this.events).containsExactly("add x at 0", "added on adder", "added on adder");
	}

	@Test
	void nothingReachesTheStoreForAnItemOrPriorityItCannotTake() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.add("bad"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.addAll(List.of("a", "bad")));
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.addAfter("bad", Duration.ofSeconds(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.add("a", PriorityQueue.MAX_PRIORITY + 1));
		assertThat(this.events).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "add", "addAfter", "addAll" })
	void anAddThatFailsInTheStoreWhileTheHandleShutsDownIsIgnoredAndCountsNoRetry(String call) {
		this.store.added = 0;
		this.store.failure = () -> {
			this.queue.shutDown();
			return new IllegalStateException("link closed");
		};
		add(call, "x");
		assertThat(this.events).hasSize(3)
			.endsWith("before shutdown, shutting down: false", "after shutdown, shutting down: true");
		assertThat(this.events.get(0)).startsWith(call + " ").contains("x");
		assertThat(this.queue.stats().retries()).isZero();
	}

	@ParameterizedTest
	@ValueSource(strings = { "add", "addAfter", "addAll" })
	void aFailureOtherThanTheStoresIsThrownEvenWhileTheHandleShutsDown(String call) {
		this.store.failure = () -> {
			this.queue.shutDown();
			return new UnsupportedOperationException("a bug");
		};
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> add(call, "x"))
			.withMessage("a bug");
		assertThat(this.queue.stats().retries()).isZero();
	}

	private void add(String call, String item) {
		switch (call) {
			case "add" -> this.queue.add(item);
			case "addAfter" -> this.queue.addAfter(item, Duration.ofSeconds(1));
			default -> this.queue.addAll(List.of(item));
		}
	}

	@Test
	void anAddThatFailsOnARunningHandleThrows() {
		this.store.failure = () -> new IllegalStateException("link closed");
		assertThatIllegalStateException().isThrownBy(() -> this.queue.add("x")).withMessage("link closed");
		assertThatIllegalStateException().isThrownBy(() -> this.queue.addAfter("y", Duration.ofSeconds(1)));
		assertThat(this.queue.stats().retries()).isZero();
	}

	@Test
	void addAllCountsTheItemsWrittenBeforeItsStoreCallThrows() {
		this.store.added = 3;
		this.store.failure = () -> new IllegalStateException("1 of the 4 items were in the scripts that failed");
		assertThatIllegalStateException().isThrownBy(() -> this.queue.addAll(List.of("a", "b", "c", "d")));
		String me = Thread.currentThread().getName();
		assertThat(this.events).containsExactly("addAll [a, b, c, d]", "added on " + me, "added on " + me,
				"added on " + me);
	}

	@Test
	void aDelayOfZeroOrLessIsAnAddAndEveryAddAfterIsARetry() {
		this.queue.addAfter("x", Duration.ZERO, 3);
		this.queue.addAfter("y", Duration.ofSeconds(-1));
		this.queue.addAfter("z", Duration.ofSeconds(2));
		String added = "added on " + Thread.currentThread().getName();
		assertThat(this.events).containsExactly("add x at 3", added, "retried", "add y at 0", added, "retried",
				"addAfter z in 2000000000", "retried");
		assertThat(this.queue.stats().retries()).isEqualTo(3);
	}

	@Test
	void statsJoinTheStoresFiguresWithTheHeldItemsAndTheRetries() {
		this.book.take("a", new TestLease("a", 1, this.clock.nanoTime(), Long.MAX_VALUE));
		this.clock.step(Duration.ofSeconds(7));
		this.queue.addAfter("x", Duration.ofSeconds(1));
		WorkQueueStats stats = this.queue.stats();
		assertThat(stats).isEqualTo(
				new WorkQueueStats(3, 2, 1, 1, 5, Duration.ofSeconds(7).toNanos(), Duration.ofSeconds(7).toNanos(), 4));
		assertThat(this.queue.pending()).isEqualTo(7);
		assertThat(this.queue.held()).isOne();
	}

	@Test
	void theHealthIsTheTimedWorksLastFailureInTheStoresWords() {
		assertThat(this.queue.reachable()).isTrue();
		assertThat(this.queue.failure()).isNull();
		this.work.failed(new IllegalStateException("read-only"));
		assertThat(this.queue.reachable()).isFalse();
		assertThat(this.queue.failure()).isEqualTo("down: read-only");
	}

	/**
	 * A store that records its adds and reads, with fixed figures; "bad" is an encoding
	 * it cannot keep. It claims nothing and releases by recording.
	 */
	private final class FakeStore implements QueueDriver, ClaimDriver<TestLease>, ReleaseDriver<TestLease>,
			TimedWorkDriver<TestLease, String> {

		/** What an add's call counts as new. */
		long added = 1;

		/** Makes what the next add throws, {@code null} for none. */
		Supplier<RuntimeException> failure;

		/** Its side of the handle's inspector. */
		final KeptInspection inspection = new KeptInspection();

		private void record(String event) {
			SharedStoreQueueTests.this.events.add(event);
		}

		private void failIfAsked() {
			if (this.failure != null) {
				throw this.failure.get();
			}
		}

		@Override
		public void checkEncoding(String encoded) {
			if (encoded.equals("bad")) {
				throw new IllegalArgumentException("cannot keep " + encoded);
			}
		}

		@Override
		public long add(String encoded, int priority, String context) {
			record("add " + encoded + " at " + priority);
			failIfAsked();
			return this.added;
		}

		@Override
		public void addAll(List<String> encoded, String context, LongConsumer counted) {
			record("addAll " + encoded);
			counted.accept(this.added);
			failIfAsked();
		}

		@Override
		public void addAfter(String encoded, int priority, long delayNanos, String context) {
			record("addAfter " + encoded + " in " + delayNanos);
			failIfAsked();
		}

		@Override
		public int size() {
			return 3;
		}

		@Override
		public Figures figures() {
			return new Figures(3, 2, 1, 4, 5);
		}

		@Override
		public List<Level> readyLevels() {
			return List.of();
		}

		@Override
		public InspectionDriver inspection() {
			return this.inspection;
		}

		@Override
		public String server() {
			return "fake";
		}

		@Override
		public void beforeShutDown() {
			record("before shutdown, shutting down: " + SharedStoreQueueTests.this.queue.isShuttingDown());
		}

		@Override
		public void afterShutDown() {
			record("after shutdown, shutting down: " + SharedStoreQueueTests.this.queue.isShuttingDown());
		}

		/** Its own failures are the {@link IllegalStateException}s. */
		@Override
		public boolean ignorableAtShutDown(RuntimeException failure) {
			return failure instanceof IllegalStateException;
		}

		@Override
		public String description() {
			return "FakeQueue[q]";
		}

		@Override
		public int claimLimit() {
			return 1;
		}

		@Override
		public Claim<TestLease> claim(int count, List<TestLease> owedDones, long sentNanos) {
			throw new UnsupportedOperationException("these tests take nothing");
		}

		@Override
		public String who() {
			return "Queue 'q'";
		}

		@Override
		public long deadLettered() {
			return 0;
		}

		@Override
		public void done(List<TestLease> leases) {
			leases.forEach((lease) -> record("done " + lease));
		}

		@Override
		public void handBack(TestLease lease, long delayNanos) {
			record("handBack " + lease);
		}

		@Override
		public List<TestLease> handBackInPlace(List<TestLease> leases) {
			record("handBackInPlace " + leases);
			return List.of();
		}

		@Override
		public Predicate<TestLease> renew(List<TestLease> live) {
			return (lease) -> true;
		}

		@Override
		public Reaped reap(long nowNanos) {
			return new Reaped(0, nowNanos + LEASE_NANOS);
		}

		@Override
		public boolean report() {
			return false;
		}

		@Override
		public boolean ticksEveryRun() {
			return false;
		}

		@Override
		public void handBack(List<TestLease> orphans) {
			orphans.clear();
		}

		@Override
		public String failure(RuntimeException failure) {
			return failure.getMessage();
		}

		@Override
		public String describe(String cause) {
			return cause;
		}

		@Override
		public String healthFailure(String cause) {
			return "down: " + cause;
		}

		@Override
		public void resign() {
		}

		@Override
		public void release() {
		}

	}

}
