package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Concurrent calls share one write: a lone call writes at once, the calls that come while
 * a batch is written go together in the next, and each returns only once its own requests
 * were written, with its own outcome or failure, whatever the writer throws.
 */
class CallGroupTests {

	@Test
	void aLoneCallIsWrittenAtOnceOnItsOwnThreadAndGetsItsOutcome() {
		FakeStore store = new FakeStore();
		CallGroup<String, String> group = new CallGroup<>(10, store);
		assertThat(group.call("a")).isEqualTo("A");
		assertThat(store.writers).containsExactly(Thread.currentThread().getName());
	}

	@Test
	void theRequestsOfOneCallShareTheCallAndGetTheirOutcomesInOrder() {
		FakeStore store = new FakeStore();
		CallGroup<String, String> group = new CallGroup<>(10, store);
		List<Object> calls = new CopyOnWriteArrayList<>();
		store.onWrite = (batch) -> {
			for (int i = 0; i < batch.size(); i++) {
				calls.add(batch.call(i));
			}
		};
		assertThat(group.callAll(List.of("a", "b"))).containsExactly("A", "B");
		assertThat(group.call("c")).isEqualTo("C");
		assertThat(calls).hasSize(3);
		assertThat(calls.get(0)).isSameAs(calls.get(1)).isNotSameAs(calls.get(2));
	}

	@Test
	void callsThatComeWhileABatchIsWrittenGoTogetherInTheNextUpToTheBound() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		FakeStore store = new FakeStore();
		store.onWrite = (batch) -> {
			if (batch.argument(0).equals("first")) {
				awaitRelease(release);
			}
		};
		CallGroup<String, String> group = new CallGroup<>(3, store);
		List<String> wrongOnReturn = new CopyOnWriteArrayList<>();
		List<Thread> callers = new ArrayList<>();
		callers.add(caller(group, "first", wrongOnReturn));
		await().atMost(Duration.ofSeconds(5)).until(() -> store.batches.size() == 1);
		for (int i = 0; i < 5; i++) {
			Thread next = caller(group, "item-" + i, wrongOnReturn);
			await().atMost(Duration.ofSeconds(5)).until(() -> next.getState() == Thread.State.WAITING);
			callers.add(next);
		}
		release.countDown();
		joinAll(callers);
		assertThat(wrongOnReturn).isEmpty();
		assertThat(store.batches).containsExactly(List.of("first"), List.of("item-0", "item-1", "item-2"),
				List.of("item-3", "item-4"));
	}

	@Test
	void aRequestTheWriterFailsFailsItsCallerOnlyWithAFailureOfItsOwn() throws Exception {
		FakeStore store = new FakeStore();
		store.failing = "bad";
		CallGroup<String, String> group = new CallGroup<>(10, store);
		assertThatThrownBy(() -> group.call("bad")).isInstanceOf(StoreFailure.class).hasMessage("store: bad");
		assertThat(group.call("good")).isEqualTo("GOOD");
	}

	@Test
	void aWriterThatThrowsFailsEveryCallerOfItsBatchAndTheNextCallsStillRun() throws Exception {
		assertEveryCallerOfTheBatchFails(new IllegalStateException("refused"), StoreFailure.class);
	}

	/**
	 * R7: an error in the writing thread must not let the other callers return as if
	 * written.
	 */
	@Test
	void aWriterThatThrowsAnErrorFailsEveryCallerOfItsBatchAndItsLeaderRethrowsIt() throws Exception {
		assertEveryCallerOfTheBatchFails(new OutOfMemoryError("no room"), OutOfMemoryError.class);
	}

	/**
	 * R2: a call made from inside the write (a hook called there that adds to its queue)
	 * would wait for that very write for good: it fails at once instead.
	 */
	@Test
	void aCallFromInsideTheWriteFailsAtOnceInsteadOfWaitingForItself() {
		FakeStore store = new FakeStore();
		CallGroup<String, String> group = new CallGroup<>(10, store);
		AtomicReference<Throwable> inner = new AtomicReference<>();
		store.onWrite = (batch) -> {
			if (batch.argument(0).equals("outer")) {
				try {
					group.call("inner");
				}
				catch (IllegalStateException ex) {
					inner.set(ex);
				}
			}
		};
		assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertThat(group.call("outer")).isEqualTo("OUTER"));
		assertThat(inner.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("own write");
		assertThat(group.call("after")).isEqualTo("AFTER");
	}

	@Test
	void aHookCalledAfterTheCallMayCallTheGroupAgain() {
		FakeStore store = new FakeStore();
		CallGroup<String, String> group = new CallGroup<>(10, store);
		AtomicInteger hooks = new AtomicInteger();
		Runnable hook = () -> {
			if (hooks.incrementAndGet() == 1) {
				group.call("from-hook");
			}
		};
		assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
			group.call("a");
			hook.run();
		});
		assertThat(store.batches).containsExactly(List.of("a"), List.of("from-hook"));
	}

	@Test
	void aWriterThatGivesNoOutcomeFailsTheRequest() {
		FakeStore store = new FakeStore();
		store.answer = false;
		CallGroup<String, String> group = new CallGroup<>(10, store);
		assertThatThrownBy(() -> group.call("a")).isInstanceOf(StoreFailure.class).hasMessageContaining("no outcome");
	}

	@Test
	void badArgumentsAreNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> new CallGroup<>(0, new FakeStore()))
			.withMessageContaining("maxBatch");
		assertThatIllegalArgumentException().isThrownBy(() -> new CallGroup<>(1, new FakeStore()).callAll(List.of()))
			.withMessageContaining("arguments");
	}

	/**
	 * Holds a first batch open until two more callers wait, then lets the writer throw
	 * {@code thrown} for the batch that holds both: each caller of that batch fails.
	 */
	private static void assertEveryCallerOfTheBatchFails(Throwable thrown, Class<? extends Throwable> leaderGets)
			throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		FakeStore store = new FakeStore();
		store.onWrite = (batch) -> {
			if (batch.argument(0).equals("first")) {
				awaitRelease(release);
			}
			else if (thrown instanceof Error error) {
				throw error;
			}
			else {
				throw (RuntimeException) thrown;
			}
		};
		CallGroup<String, String> group = new CallGroup<>(10, store);
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<String> returned = new CopyOnWriteArrayList<>();
		Thread first = new Thread(() -> group.call("first"));
		first.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> store.batches.size() == 1);
		List<Thread> callers = new ArrayList<>();
		for (String request : List.of("x", "y", "z")) {
			Thread caller = new Thread(() -> {
				try {
					returned.add(group.call(request));
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
			});
			caller.start();
			await().atMost(Duration.ofSeconds(5)).until(() -> caller.getState() == Thread.State.WAITING);
			callers.add(caller);
		}
		release.countDown();
		first.join(10_000);
		joinAll(callers);
		assertThat(store.batches).containsExactly(List.of("first"), List.of("x", "y", "z"));
		assertThat(returned).as("returned as if written").isEmpty();
		assertThat(failures).hasSize(3);
		assertThat(failures).as("the leader's").filteredOn(leaderGets::isInstance).isNotEmpty();
		assertThat(failures).filteredOn((failure) -> failure != thrown)
			.allSatisfy((failure) -> assertThat(failure).isInstanceOf(StoreFailure.class).hasCause(thrown));
		store.onWrite = (batch) -> {
		};
		assertThat(group.call("next")).isEqualTo("NEXT");
	}

	@Test
	void aLingeringLeaderWritesTheRequestItExpectedInItsOwnBatch() throws Exception {
		FakeStore store = new FakeStore();
		TestLinger linger = new TestLinger(Duration.ofSeconds(60));
		CallGroup<String, String> group = new CallGroup<>(10, store, linger);
		List<String> wrongOnReturn = new CopyOnWriteArrayList<>();
		Thread leader = caller(group, "first", wrongOnReturn);
		awaitLingering(leader, linger);
		assertThat(store.batches).isEmpty();
		// The request it waited for comes: it joins the batch, and no more is expected
		// (a spurious wake-up before it comes finds it still expected).
		linger.until = "second";
		Thread next = caller(group, "second", wrongOnReturn);
		joinAll(List.of(leader, next));
		assertThat(wrongOnReturn).isEmpty();
		assertThat(store.batches).containsExactly(List.of("first", "second"));
	}

	@Test
	void aLingerEndsAtItsBoundWhenWhatItExpectsDoesNotCome() throws Exception {
		FakeStore store = new FakeStore();
		TestLinger linger = new TestLinger(Duration.ofMillis(50));
		CallGroup<String, String> group = new CallGroup<>(10, store, linger);
		long startNanos = System.nanoTime();
		assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThat(group.call("a")).isEqualTo("A"));
		assertThat(System.nanoTime() - startNanos).isGreaterThanOrEqualTo(Duration.ofMillis(50).toNanos());
		assertThat(linger.asked).hasPositiveValue();
		assertThat(store.batches).containsExactly(List.of("a"));
	}

	@Test
	void anInterruptEndsTheLingerAndIsKeptForTheLeader() throws Exception {
		FakeStore store = new FakeStore();
		TestLinger linger = new TestLinger(Duration.ofSeconds(60));
		CallGroup<String, String> group = new CallGroup<>(10, store, linger);
		AtomicReference<Boolean> interruptedOnReturn = new AtomicReference<>();
		Thread leader = new Thread(() -> {
			group.call("a");
			interruptedOnReturn.set(Thread.currentThread().isInterrupted());
		}, "caller-a");
		leader.start();
		awaitLingering(leader, linger);
		leader.interrupt();
		joinAll(List.of(leader));
		assertThat(interruptedOnReturn.get()).isTrue();
		assertThat(store.batches).containsExactly(List.of("a"));
	}

	@Test
	void aLeaderDoesNotLingerOnceItsBatchIsFull() {
		FakeStore store = new FakeStore();
		TestLinger linger = new TestLinger(Duration.ofSeconds(60));
		CallGroup<String, String> group = new CallGroup<>(2, store, linger);
		assertTimeoutPreemptively(Duration.ofSeconds(10),
				() -> assertThat(group.callAll(List.of("a", "b"))).containsExactly("A", "B"));
		assertThat(store.batches).containsExactly(List.of("a", "b"));
	}

	@Test
	void aLingerThatThrowsIsNoLingerAndTheGroupGoesOn() {
		FakeStore store = new FakeStore();
		TestLinger linger = new TestLinger(Duration.ofSeconds(60));
		linger.throwing = new IllegalStateException("a clock that fails");
		CallGroup<String, String> group = new CallGroup<>(10, store, linger);
		assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
			assertThat(group.call("a")).isEqualTo("A");
			linger.throwing = null;
			linger.expecting = false;
			assertThat(group.call("b")).isEqualTo("B");
		});
		assertThat(store.batches).containsExactly(List.of("a"), List.of("b"));
	}

	@Test
	void anErrorInTheLingerIsRethrownOnceTheLeadersBatchIsWrittenAndTheGroupGoesOn() {
		FakeStore store = new FakeStore();
		TestLinger linger = new TestLinger(Duration.ofSeconds(60));
		AssertionError error = new AssertionError("a linger's error");
		linger.throwing = error;
		CallGroup<String, String> group = new CallGroup<>(10, store, linger);
		assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
			assertThatThrownBy(() -> group.call("a")).isSameAs(error);
			linger.throwing = null;
			linger.expecting = false;
			assertThat(group.call("b")).isEqualTo("B");
		});
		assertThat(store.batches).containsExactly(List.of("a"), List.of("b"));
	}

	@Test
	void theLingerIsToldOfEachBatchBeforeAndAfterItsWriteWithWhatWasQueuedMeanwhile() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		FakeStore store = new FakeStore();
		store.onWrite = (batch) -> {
			if (batch.argument(0).equals("first")) {
				awaitRelease(release);
			}
		};
		TestLinger linger = new TestLinger(Duration.ZERO);
		CallGroup<String, String> group = new CallGroup<>(10, store, linger);
		List<String> wrongOnReturn = new CopyOnWriteArrayList<>();
		List<Thread> callers = new ArrayList<>();
		callers.add(caller(group, "first", wrongOnReturn));
		await().atMost(Duration.ofSeconds(5)).until(() -> store.batches.size() == 1);
		for (String request : List.of("a", "b")) {
			Thread next = caller(group, request, wrongOnReturn);
			await().atMost(Duration.ofSeconds(5)).until(() -> next.getState() == Thread.State.WAITING);
			callers.add(next);
		}
		assertThat(linger.told).containsExactly("writing 1");
		release.countDown();
		joinAll(callers);
		assertThat(wrongOnReturn).isEmpty();
		assertThat(linger.told).containsExactly("writing 1", "written 1, queued [a, b]", "writing 2",
				"written 2, queued []");
	}

	@Test
	void aLeaderWhoseBatchIsFullAlreadyAsksNoLingerAndACallLongerThanABatchFinishesInItsLast() {
		FakeStore store = new FakeStore();
		TestLinger linger = new TestLinger(Duration.ofSeconds(60));
		CallGroup<String, String> group = new CallGroup<>(2, store, linger);
		linger.until = "c";
		assertTimeoutPreemptively(Duration.ofSeconds(10),
				() -> assertThat(group.callAll(List.of("a", "b", "c"))).containsExactly("A", "B", "C"));
		assertThat(store.batches).containsExactly(List.of("a", "b"), List.of("c"));
		assertThat(linger.bounds).as("asked for the second batch only").hasValue(1);
		assertThat(linger.told).containsExactly("writing 2", "written 0, queued [c]", "writing 1",
				"written 1, queued []");
	}

	@Test
	void aLingerThatThrowsWhenToldOfABatchFailsNoCallAndAnErrorIsRethrownByTheLeaderOnly() {
		FakeStore store = new FakeStore();
		TestLinger linger = new TestLinger(Duration.ZERO);
		CallGroup<String, String> group = new CallGroup<>(10, store, linger);
		AssertionError error = new AssertionError("a linger's error");
		assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
			linger.throwingWhenTold = new IllegalStateException("a clock that fails");
			assertThat(group.call("a")).isEqualTo("A");
			linger.throwingWhenTold = error;
			assertThatThrownBy(() -> group.call("b")).isSameAs(error);
			linger.throwingWhenTold = null;
			assertThat(group.call("c")).isEqualTo("C");
		});
		assertThat(store.batches).containsExactly(List.of("a"), List.of("b"), List.of("c"));
	}

	/** Waits until {@code leader} lingers: it asked its linger and waits, timed. */
	private static void awaitLingering(Thread leader, TestLinger linger) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> linger.asked.get() > 0 && leader.getState() == Thread.State.TIMED_WAITING);
	}

	private static Thread caller(CallGroup<String, String> group, String request, List<String> wrongOnReturn) {
		Thread thread = new Thread(() -> {
			if (!group.call(request).equals(request.toUpperCase())) {
				wrongOnReturn.add(request);
			}
		}, "caller-" + request);
		thread.start();
		return thread;
	}

	private static void joinAll(List<Thread> threads) throws InterruptedException {
		for (Thread thread : threads) {
			thread.join(10_000);
			assertThat(thread.isAlive()).isFalse();
		}
	}

	private static void awaitRelease(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** A linger that expects more until told otherwise, within a bound. */
	static final class TestLinger implements CallGroup.Linger<String> {

		private final long boundNanos;

		final AtomicInteger asked = new AtomicInteger();

		/** How often it was asked for a bound. */
		final AtomicInteger bounds = new AtomicInteger();

		volatile boolean expecting = true;

		/** A request after which no more is expected, if set. */
		volatile String until;

		/** Thrown by the next linger, if set. */
		volatile Throwable throwing;

		/** Thrown when told of a batch, if set. */
		volatile Throwable throwingWhenTold;

		/** What it was told of the batches, in order. */
		final List<String> told = new CopyOnWriteArrayList<>();

		TestLinger(Duration bound) {
			this.boundNanos = bound.toNanos();
		}

		@Override
		public long boundNanos(List<? extends String> queued) {
			this.bounds.incrementAndGet();
			if (this.throwing instanceof RuntimeException ex) {
				throw ex;
			}
			if (this.throwing instanceof Error ex) {
				throw ex;
			}
			return this.boundNanos;
		}

		@Override
		public boolean expectsMore(List<? extends String> queued) {
			this.asked.incrementAndGet();
			return this.expecting && (this.until == null || !queued.contains(this.until));
		}

		@Override
		public void writing(int requests) {
			this.told.add("writing " + requests);
			throwIfTold();
		}

		@Override
		public void written(int finishedCalls, List<? extends String> queued) {
			this.told.add("written " + finishedCalls + ", queued " + queued);
			throwIfTold();
		}

		private void throwIfTold() {
			if (this.throwingWhenTold instanceof RuntimeException ex) {
				throw ex;
			}
			if (this.throwingWhenTold instanceof Error ex) {
				throw ex;
			}
		}

	}

	/** A store's failure, as a driver makes it. */
	static final class StoreFailure extends RuntimeException {

		StoreFailure(String message, Throwable cause) {
			super(message, cause);
		}

	}

	/**
	 * A store that answers each request with its text in capitals, and records its
	 * batches.
	 */
	static final class FakeStore implements BatchWriter<String, String> {

		final List<List<String>> batches = new CopyOnWriteArrayList<>();

		final List<String> writers = new CopyOnWriteArrayList<>();

		volatile Consumer<BatchWriter.Batch<String, String>> onWrite = (batch) -> {
		};

		volatile String failing;

		volatile boolean answer = true;

		@Override
		public void write(Batch<String, String> batch) {
			List<String> requests = new ArrayList<>();
			for (int i = 0; i < batch.size(); i++) {
				requests.add(batch.argument(i));
			}
			this.batches.add(requests);
			this.writers.add(Thread.currentThread().getName());
			this.onWrite.accept(batch);
			for (int i = 0; i < batch.size() && this.answer; i++) {
				if (batch.argument(i).equals(this.failing)) {
					batch.failed(i, new StoreFailure("store: " + batch.argument(i), null));
				}
				else {
					batch.written(i, batch.argument(i).toUpperCase());
				}
			}
		}

		@Override
		public RuntimeException failure(Throwable cause) {
			return new StoreFailure((cause instanceof StoreFailure) ? cause.getMessage() : "store: " + cause, cause);
		}

	}

}
