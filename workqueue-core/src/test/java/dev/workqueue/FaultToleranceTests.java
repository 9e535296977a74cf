package dev.workqueue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A fault of user code (an item's {@code hashCode}, a metrics hook, the clock) costs at
 * most that item or that call: no queue thread dies of it, and no item is stranded.
 */
class FaultToleranceTests {

	private final FakeClock clock = new FakeClock();

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "RATE_LIMITING" })
	void keyWhoseHashCodeBreaksWhileItWaitsIsStillHandedOutWhenDue(QueueKind kind) throws Exception {
		try (DelayingQueue<Object> queue = queue(kind)) {
			Object key = new HashCodeThrowsAfterFirstCall();
			queue.addAfter(key, Duration.ofMillis(10));
			queue.addAfter("x", Duration.ofMillis(10));
			this.clock.step(Duration.ofMillis(10));
			assertThat(new Object[] { queue.poll(Duration.ZERO), queue.poll(Duration.ZERO) })
				.as("its node is moved, never hashed again")
				.containsExactlyInAnyOrder(key, "x");
			assertThatIllegalStateException().as("done hashes it: the caller sees its fault")
				.isThrownBy(() -> queue.done(key));
			queue.done("x");
			assertThat(queue.stats().waiting()).isZero();
		}
	}

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "RATE_LIMITING" })
	void metricsHookThatThrowsNeverStrandsAnItem(QueueKind kind) throws Exception {
		ThrowingMetrics metrics = new ThrowingMetrics();
		try (DelayingQueue<Object> queue = queue(kind, WorkQueues.builder().clock(this.clock).metrics(metrics))) {
			queue.add("now");
			queue.addAfter("later", Duration.ofMillis(10));
			queue.addAfter("zero", Duration.ZERO);
			this.clock.step(Duration.ofMillis(10));
			Object first = queue.poll(Duration.ofSeconds(1));
			Object second = queue.poll(Duration.ofSeconds(1));
			Object third = queue.poll(Duration.ofSeconds(1));
			assertThat(new Object[] { first, second, third }).containsExactlyInAnyOrder("now", "later", "zero");
			queue.done(first);
			queue.done(second);
			queue.done(third);
			assertThat(queue.stats().processing()).isZero();
			assertThat(queue.stats().retries()).isEqualTo(2);
			assertThat(metrics.calls.get()).as("every hook was called, and threw").isGreaterThanOrEqualTo(8);
		}
	}

	@Test
	void plainQueueHooksThatThrowLeaveTheQueueConsistent() throws Exception {
		try (WorkQueue<Object> queue = WorkQueues.builder()
			.clock(this.clock)
			.metrics(new ThrowingMetrics())
			.buildQueue()) {
			queue.add("a");
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
			queue.add("a");
			queue.done("a");
			assertThat(queue.poll(Duration.ZERO)).as("re-added while processing: queued again on done").isEqualTo("a");
			queue.done("a");
			queue.shutDownWithDrain();
			assertThat(QueueKind.engine(queue).trackedItems()).isZero();
		}
	}

	@Test
	void addAfterZeroOfAnItemWhoseHashCodeThrowsCountsNoRetry() {
		try (DelayingQueue<Object> queue = queue(QueueKind.DELAYING)) {
			Object bad = new HashCodeAlwaysThrows();
			try {
				queue.addAfter(bad, Duration.ZERO);
			}
			catch (IllegalStateException expected) {
				// the caller's item: its error reaches the caller
			}
			assertThat(queue.stats().retries()).isZero();
		}
	}

	@Test
	void aThrowingClockFailsTheCallThatReadItAndLosesNothing() throws Exception {
		FlakyClock flaky = new FlakyClock(this.clock);
		try (DelayingQueue<Object> queue = WorkQueues.builder().clock(flaky).buildDelayingQueue()) {
			queue.addAfter("a", Duration.ofMillis(10));
			flaky.failing = true;
			this.clock.step(Duration.ofMillis(10));
			assertThatIllegalStateException().isThrownBy(() -> queue.poll(Duration.ZERO));
			assertThatIllegalStateException().isThrownBy(() -> queue.addAfter("b", Duration.ofMillis(10)));
			assertThatIllegalStateException().isThrownBy(queue::size);
			flaky.failing = false;
			assertThat(queue.stats().retries()).as("b's add failed").isOne();
			assertThat(queue.size()).as("a, due, moved now").isOne();
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
			queue.addAfter("b", Duration.ofMillis(10));
			this.clock.step(Duration.ofMillis(10));
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("b");
		}
	}

	@Test
	void aClockThatThrowsAtHandOutLeavesTheItemQueued() throws Exception {
		FlakyClock flaky = new FlakyClock(this.clock);
		try (WorkQueue<Object> queue = WorkQueues.builder().clock(flaky).metrics(new RecordingMetrics()).buildQueue()) {
			queue.add("a");
			flaky.failing = true;
			assertThatIllegalStateException().isThrownBy(() -> queue.poll(Duration.ZERO));
			flaky.failing = false;
			assertThat(queue.stats().processing()).isZero();
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
			queue.done("a");
			assertThat(QueueKind.engine(queue).trackedItems()).isZero();
		}
	}

	@Test
	void metricsHookThatReadsTheQueueRunsOutsideItsLock() throws Exception {
		AtomicInteger adds = new AtomicInteger();
		AtomicInteger underTheLock = new AtomicInteger();
		AtomicReference<DelayingQueue<Object>> self = new AtomicReference<>();
		WorkQueueMetrics reading = new WorkQueueMetrics() {

			@Override
			public void added() {
				adds.incrementAndGet();
				// A hook recording the depth: under the queue's lock it would move more
				// due items and run hooks again, nested.
				if (QueueKind.engine(self.get()).isLockHeldByCurrentThread()) {
					underTheLock.incrementAndGet();
				}
				self.get().size();
			}

		};
		try (DelayingQueue<Object> queue = WorkQueues.builder()
			.clock(this.clock)
			.metrics(reading)
			.buildDelayingQueue()) {
			self.set(queue);
			for (int i = 0; i < 5_000; i++) {
				queue.addAfter(i, Duration.ofMillis(1 + i % 7));
			}
			this.clock.step(Duration.ofMillis(8));
			assertThat(queue.size()).isEqualTo(5_000);
			assertThat(adds.get()).isEqualTo(5_000);
			assertThat(underTheLock.get()).isZero();
		}
	}

	private DelayingQueue<Object> queue(QueueKind kind) {
		return queue(kind, WorkQueues.builder().clock(this.clock));
	}

	@SuppressWarnings("unchecked")
	private static DelayingQueue<Object> queue(QueueKind kind, WorkQueues.Builder<Object> builder) {
		WorkQueues.Builder<String> raw = (WorkQueues.Builder<String>) (WorkQueues.Builder<?>) builder;
		return (DelayingQueue<Object>) (DelayingQueue<?>) kind.build(raw);
	}

	/** A key that breaks after being placed: its second hashCode call throws. */
	static final class HashCodeThrowsAfterFirstCall {

		private final AtomicInteger calls = new AtomicInteger();

		@Override
		public int hashCode() {
			if (this.calls.incrementAndGet() > 1) {
				throw new IllegalStateException("mutated key");
			}
			return 42;
		}

		@Override
		public String toString() {
			throw new IllegalStateException("toString must not be called");
		}

	}

	static final class HashCodeAlwaysThrows {

		@Override
		public int hashCode() {
			throw new IllegalStateException("bad key");
		}

	}

	static final class ThrowingMetrics implements WorkQueueMetrics {

		final AtomicInteger calls = new AtomicInteger();

		@Override
		public void added() {
			fail();
		}

		@Override
		public void handedOut(long queuedNanos) {
			fail();
		}

		@Override
		public void done(long workNanos) {
			fail();
		}

		@Override
		public void retried() {
			fail();
		}

		private void fail() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("hook failed");
		}

	}

	/** Reads a fake clock, or throws while {@link #failing}. */
	static final class FlakyClock implements Clock {

		private final FakeClock clock;

		volatile boolean failing;

		FlakyClock(FakeClock clock) {
			this.clock = clock;
		}

		@Override
		public long nanoTime() {
			if (this.failing) {
				throw new IllegalStateException("clock failed");
			}
			return this.clock.nanoTime();
		}

		@Override
		public void awaitUntil(java.util.concurrent.locks.Lock lock, java.util.concurrent.locks.Condition condition,
				long deadlineNanos) throws InterruptedException {
			this.clock.awaitUntil(lock, condition, deadlineNanos);
		}

	}

}
