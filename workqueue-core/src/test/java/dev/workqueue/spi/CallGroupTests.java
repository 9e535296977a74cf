package dev.workqueue.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Concurrent calls share one write: a lone call writes at once, the calls that come while
 * a batch is written go together in the next, and each returns only once its own requests
 * were written.
 */
class CallGroupTests {

	@Test
	void aLoneCallIsWrittenAtOnceOnItsOwnThread() {
		List<String> writers = new ArrayList<>();
		CallGroup<String> group = new CallGroup<>(10, (batch) -> writers.add(Thread.currentThread().getName()));
		group.join(List.of("a"));
		assertThat(writers).containsExactly(Thread.currentThread().getName());
	}

	@Test
	void callsThatComeWhileABatchIsWrittenGoTogetherInTheNextUpToTheBound() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		List<List<String>> batches = new CopyOnWriteArrayList<>();
		List<String> written = new CopyOnWriteArrayList<>();
		CallGroup<String> group = new CallGroup<>(3, (batch) -> {
			batches.add(List.copyOf(batch));
			if (batch.contains("first")) {
				awaitRelease(release);
			}
			written.addAll(batch);
		});
		List<String> notWrittenOnReturn = new CopyOnWriteArrayList<>();
		List<Thread> callers = new ArrayList<>();
		callers.add(caller(group, "first", written, notWrittenOnReturn));
		await().atMost(Duration.ofSeconds(5)).until(() -> batches.size() == 1);
		for (int i = 0; i < 5; i++) {
			Thread next = caller(group, "item-" + i, written, notWrittenOnReturn);
			await().atMost(Duration.ofSeconds(5)).until(() -> next.getState() == Thread.State.WAITING);
			callers.add(next);
		}
		release.countDown();
		for (Thread thread : callers) {
			thread.join(10_000);
			assertThat(thread.isAlive()).isFalse();
		}
		assertThat(notWrittenOnReturn).isEmpty();
		assertThat(batches).containsExactly(List.of("first"), List.of("item-0", "item-1", "item-2"),
				List.of("item-3", "item-4"));
	}

	@Test
	void aWriterThatThrowsFailsItsLeaderOnlyAndTheNextCallsStillRun() {
		List<String> written = new ArrayList<>();
		CallGroup<String> group = new CallGroup<>(10, (batch) -> {
			if (batch.contains("bad")) {
				throw new IllegalStateException("bad");
			}
			written.addAll(batch);
		});
		assertThatIllegalStateException().isThrownBy(() -> group.join(List.of("bad")));
		group.join(List.of("good"));
		assertThat(written).containsExactly("good");
	}

	@Test
	void badArgumentsAreNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> new CallGroup<String>(0, (batch) -> {
		})).withMessageContaining("maxBatch");
		assertThatIllegalArgumentException().isThrownBy(() -> new CallGroup<String>(1, (batch) -> {
		}).join(List.of())).withMessageContaining("requests");
	}

	private static Thread caller(CallGroup<String> group, String request, List<String> written,
			List<String> notWrittenOnReturn) {
		Thread thread = new Thread(() -> {
			group.join(List.of(request));
			if (!written.contains(request)) {
				notWrittenOnReturn.add(request);
			}
		}, "caller-" + request);
		thread.start();
		return thread;
	}

	private static void awaitRelease(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
