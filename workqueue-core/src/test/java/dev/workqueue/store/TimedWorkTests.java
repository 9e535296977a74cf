package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TimedWorkTests {

	private static final long LEASE = 3_000_000_000L;

	private static final long TICK = 500_000_000L;

	private final FakeClock clock = new FakeClock();

	private final LeaseBook<String, TestLease> book = new LeaseBook<>();

	private final HandleLifecycle lifecycle = new HandleLifecycle(() -> {
	});

	private final FakeDriver driver = new FakeDriver();

	private final RecordingLogger logger = new RecordingLogger();

	private final AtomicInteger stalledHooks = new AtomicInteger();

	private final AtomicInteger wakes = new AtomicInteger();

	private final List<Runnable> hooks = new ArrayList<>();

	private final TimedWork<TestLease, String> work = new TimedWork<>(this.driver, this.book, this.lifecycle,
			new WorkQueueMetrics() {

				@Override
				public void stalled() {
					TimedWorkTests.this.stalledHooks.incrementAndGet();
				}

			}, this.hooks::add, this.clock, this.wakes::incrementAndGet, this.logger, "Queue 'q'",
			"Queue 'q' reaches the store", LEASE, TICK);

	@Test
	void ticksWhenDueAndRenewsEveryThirdOfTheLease() {
		TestLease kept = lease("a", 1);
		lease("b", 2);
		this.driver.lost = Set.of(2L);
		long now = this.clock.nanoTime();
		assertThat(this.work.run(now)).as("next: the tick").isEqualTo(now + TICK);
		assertThat(this.driver.calls).containsExactly("reap", "report");
		assertThat(this.work.reporter()).isTrue();
		this.driver.calls.clear();
		assertThat(this.work.run(now + 1)).as("woken early: nothing due").isEqualTo(now + TICK);
		assertThat(this.driver.calls).isEmpty();
		this.clock.step(Duration.ofNanos(LEASE / 3));
		this.work.run(this.clock.nanoTime());
		assertThat(this.driver.calls).containsExactly("renew [a#1, b#2]", "reap", "report");
		assertThat(kept.validUntilNanos()).isEqualTo(this.clock.nanoTime() + LEASE);
		assertThat(this.book.live()).containsExactly(kept);
		assertThat(this.logger.messages).containsExactly(
				"WARNING Queue 'q' lost the lease of 1 item(s) it holds; another instance may process them now");
	}

	@Test
	void aStoreThatTicksEveryRunTicksWhenWoken() {
		this.driver.everyRun = true;
		long now = this.clock.nanoTime();
		this.work.run(now);
		this.work.run(now + 1);
		assertThat(this.driver.calls).containsExactly("reap", "report", "reap", "report");
	}

	@Test
	void reapedItemsAreCountedLoggedAndToldToTheHookOnItsExecutor() {
		this.driver.reaped = 2;
		this.work.run(this.clock.nanoTime());
		this.work.run(this.clock.nanoTime() + TICK);
		assertThat(this.work.stalled()).isEqualTo(4);
		assertThat(this.stalledHooks).hasValue(0);
		assertThat(this.hooks).as("handed over once while untold").hasSize(1);
		this.hooks.get(0).run();
		assertThat(this.stalledHooks).hasValue(4);
		assertThat(this.logger.messages)
			.containsOnly("WARNING Queue 'q' queued again 2 item(s) whose lease ran out before their holder was done");
	}

	@Test
	void failuresAreLoggedOncePerCauseBackedOffAndTheRecoverySaid() {
		long now = this.clock.nanoTime();
		this.driver.failing = "down";
		assertThat(this.work.run(now)).isEqualTo(now + 50_000_000L);
		assertThat(this.work.run(now)).isEqualTo(now + 100_000_000L);
		assertThat(this.work.backingOff()).isTrue();
		assertThat(this.work.failing()).isEqualTo("down");
		for (int i = 0; i < 10; i++) {
			this.work.run(now);
		}
		assertThat(this.work.run(now)).as("never past the tick").isEqualTo(now + TICK);
		this.driver.failing = null;
		this.work.run(now);
		assertThat(this.work.backingOff()).isFalse();
		assertThat(this.work.failing()).isNull();
		assertThat(this.logger.messages).containsExactly("WARNING down; retrying with backoff until it works",
				"INFO Queue 'q' reaches the store again (after: the store is down)");
	}

	@Test
	void aStoreThatRenewsNothingOnACauseBacksOffUpToAThirdOfTheLease() {
		long now = this.clock.nanoTime();
		this.driver.failing = "read-only";
		long last = 0;
		for (int i = 0; i < 12; i++) {
			last = this.work.run(now);
		}
		assertThat(last).isEqualTo(now + LEASE / 3);
	}

	@Test
	void whatIsNoStoreFailureIsThrown() {
		this.driver.failing = "not the store's";
		assertThatIllegalArgumentException().isThrownBy(() -> this.work.run(this.clock.nanoTime()));
	}

	@Test
	void aStoreGoneForGoodEndsTheWorkSaidOnce() {
		this.driver.failing = "down";
		this.driver.gone = true;
		this.work.run(this.clock.nanoTime());
		assertThat(this.work.stopped()).isTrue();
		assertThat(this.work.failing()).isEqualTo("down");
		assertThat(this.driver.calls).containsExactly("resign", "release");
		assertThat(this.logger.messages).containsExactly("WARNING gone");
	}

	@Test
	void orphansThatFailStayForTheNextRun() {
		TestLease orphan = new TestLease("a", 1);
		this.book.orphan(orphan);
		this.driver.failing = "down";
		this.work.run(this.clock.nanoTime());
		assertThat(this.book.hasOrphans()).isTrue();
		this.driver.failing = null;
		this.work.run(this.clock.nanoTime());
		assertThat(this.book.hasOrphans()).isFalse();
		assertThat(this.driver.calls).contains("handBack [a#1]");
	}

	@Test
	void orphansTheStoreLeftForLaterAreTriedAgainWithinATickAlsoOnceShutDown() {
		this.book.orphan(new TestLease("a", 1));
		this.driver.leftHeld = true;
		this.lifecycle.shutDown();
		long now = this.clock.nanoTime();
		assertThat(this.work.run(now)).as("next: within a tick, not at the renewal").isEqualTo(now + TICK);
		assertThat(this.work.stopped()).isFalse();
		this.driver.leftHeld = false;
		assertThat(this.work.run(now + TICK)).as("no tick is due once shut down").isEqualTo(now + LEASE / 3);
		assertThat(this.book.hasOrphans()).isFalse();
		this.work.run(now + TICK);
		assertThat(this.work.stopped()).isTrue();
	}

	/**
	 * Leases a handle failed to hand back are not renewed: a lease after the shut-down
	 * handle was left with only them, they have run out, and any handle's reap queues
	 * their items again, so a store that refuses for good (a user without grants) does
	 * not keep the work, and its thread, alive.
	 */
	@Test
	void aShutDownHandleLeftWithOrphansTheStoreRefusesEndsOnceTheyHaveRunOut() {
		this.book.orphan(new TestLease("a", 1));
		this.lifecycle.shutDown();
		this.driver.failing = "denied";
		long start = this.clock.nanoTime();
		long next = this.work.run(start);
		while (next < start + LEASE) {
			assertThat(this.work.stopped()).as("stopped at %d", next - start).isFalse();
			next = this.work.run(next);
		}
		this.work.run(next);
		assertThat(this.work.stopped()).isTrue();
		assertThat(this.book.hasOrphans()).isFalse();
		assertThat(this.logger.messages).contains("WARNING Queue 'q' ended without handing back 1 lease(s); "
				+ "they have run out, and the reap queues their items again");
	}

	@Test
	void aReconcileThatCannotLookNowIsAskedAgain() {
		lease("a", 1);
		this.work.reconcileSoon();
		assertThat(this.wakes).hasValue(1);
		this.driver.reconcileLooks = false;
		this.work.run(this.clock.nanoTime());
		this.driver.reconcileLooks = true;
		this.work.run(this.clock.nanoTime());
		this.work.run(this.clock.nanoTime());
		assertThat(this.driver.calls).containsSubsequence("reconcile", "reconcile [a#1]").doesNotHaveDuplicates();
	}

	/**
	 * A claim whose answer was lost may have leased items to this handle that it cannot
	 * name: a shut-down handle that holds nothing it knows looks for them once more as it
	 * ends; if the store does not answer, it ends all the same (they run out).
	 */
	@Test
	void aReconcileAskedForIsTriedOnceAsAShutDownHandleEnds() {
		this.work.reconcileSoon();
		this.lifecycle.shutDown();
		this.work.run(this.clock.nanoTime());
		assertThat(this.driver.calls).containsExactly("reconcile []", "resign", "release");
		assertThat(this.work.stopped()).isTrue();
	}

	@Test
	void aShutDownHandleWhoseStoreDoesNotAnswerItsLastReconcileEndsAllTheSame() {
		this.work.reconcileSoon();
		this.lifecycle.shutDown();
		this.driver.failing = "down";
		this.work.run(this.clock.nanoTime());
		assertThat(this.work.stopped()).isTrue();
		assertThat(this.logger.messages).anyMatch((message) -> message.startsWith("DEBUG Queue 'q' could not look"));
	}

	@Test
	void aHandleShuttingDownOnlyRenewsUntilItHoldsNothingThenResignsAndEnds() {
		TestLease held = lease("a", 1);
		this.lifecycle.shutDown();
		long now = this.clock.nanoTime();
		assertThat(this.work.run(now)).as("next: the renewal").isEqualTo(now + LEASE / 3);
		assertThat(this.driver.calls).isEmpty();
		this.book.finishForDone("a");
		this.book.ended(held);
		this.driver.failResign = true;
		this.work.run(now);
		assertThat(this.work.stopped()).isTrue();
		assertThat(this.work.reporter()).isFalse();
		assertThat(this.driver.calls).containsExactly("resign", "release");
		assertThat(this.logger.messages)
			.containsExactly("DEBUG Queue 'q' could not give up its reporter role; it lapses by itself");
	}

	private TestLease lease(String encoded, long token) {
		TestLease lease = new TestLease(encoded, token, this.clock.nanoTime(), Long.MAX_VALUE);
		this.book.take(encoded, lease);
		return lease;
	}

	private final class FakeDriver implements TimedWorkDriver<TestLease, String> {

		final List<String> calls = new ArrayList<>();

		Set<Long> lost = Set.of();

		long reaped;

		boolean everyRun;

		boolean reconcileLooks = true;

		boolean gone;

		boolean failResign;

		/** Whether a hand-back leaves the orphans held, for a later run. */
		boolean leftHeld;

		/** The cause each call throws, {@code null} while the store answers. */
		String failing;

		private void call(String call) {
			if (this.failing != null) {
				throw new IllegalStateException(this.failing);
			}
			this.calls.add(call);
		}

		@Override
		public Predicate<TestLease> renew(List<TestLease> live) {
			call("renew " + live);
			return (lease) -> !this.lost.contains(lease.token);
		}

		@Override
		public Reaped reap(long nowNanos) {
			call("reap");
			return new Reaped(this.reaped, nowNanos + TICK);
		}

		@Override
		public boolean report() {
			call("report");
			return true;
		}

		@Override
		public boolean ticksEveryRun() {
			return this.everyRun;
		}

		@Override
		public void handBack(List<TestLease> orphans) {
			call("handBack " + orphans);
			if (!this.leftHeld) {
				orphans.clear();
			}
		}

		@Override
		public boolean reconcile(Supplier<List<TestLease>> known) {
			if (!this.reconcileLooks) {
				this.calls.add("reconcile");
				return false;
			}
			call("reconcile " + known.get());
			return true;
		}

		@Override
		public String failure(RuntimeException failure) {
			if (failure.getMessage().startsWith("not")) {
				throw new IllegalArgumentException(failure);
			}
			return failure.getMessage();
		}

		@Override
		public String describe(String cause) {
			return "the store is " + cause;
		}

		@Override
		public boolean renewsNothing(String cause) {
			return cause.equals("read-only");
		}

		@Override
		public String gone() {
			return this.gone ? "gone" : null;
		}

		@Override
		public void resign() {
			this.calls.add("resign");
			if (this.failResign) {
				throw new IllegalStateException("down");
			}
		}

		@Override
		public void release() {
			this.calls.add("release");
		}

	}

	/** A logger that keeps each message with its level. */
	private static final class RecordingLogger implements System.Logger {

		final List<String> messages = new CopyOnWriteArrayList<>();

		@Override
		public String getName() {
			return "test";
		}

		@Override
		public boolean isLoggable(Level level) {
			return true;
		}

		@Override
		public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
			this.messages.add(level + " " + message);
		}

		@Override
		public void log(Level level, ResourceBundle bundle, String format, Object... params) {
			this.messages.add(level + " " + format);
		}

	}

}
