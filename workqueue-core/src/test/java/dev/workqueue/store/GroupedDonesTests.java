package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The dones a handle sends without a claim go in groups ({@link LeaseReleases}): those of
 * workers that arrive while a call is under way go out in one call, each returns only
 * once that call returned, and a call that fails fails each of its dones.
 */
class GroupedDonesTests {

	private final GroupStore store = new GroupStore();

	private final LeaseBook<String, TestLease> book = new LeaseBook<>();

	private final HandleLifecycle lifecycle = new HandleLifecycle(() -> {
	});

	private final LeaseReleases<String, TestLease> releases = new LeaseReleases<>(this.store, this.book, this.lifecycle,
			WorkQueueMetrics.NOOP, new FakeClock(), () -> {
			});

	@Test
	void theDonesOfWorkersThatArriveWhileOneIsUnderWayGoInOneCallAndReturnAfterIt() throws Exception {
		holding("a", "b", "c", "d");
		this.store.gate();
		CompletableFuture<Void> first = done("a");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 1);
		List<CompletableFuture<Void>> queued = queuedDones("b", "c", "d");
		this.store.pass();
		first.get(5, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 2);
		// The second call is under way: none of its dones has returned.
		assertThat(queued).noneMatch(CompletableFuture::isDone);
		this.store.pass();
		for (CompletableFuture<Void> done : queued) {
			done.get(5, TimeUnit.SECONDS);
		}
		assertThat(this.store.calls).containsExactly("done [a#1]", "done [b#2, c#3, d#4]");
		assertThat(this.store.heldCount()).isZero();
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void aGroupCallThatFailsFailsEachDoneOfItAndEndsTheirHolds() throws Exception {
		holding("a", "b", "c", "d");
		this.store.gate();
		CompletableFuture<Void> first = done("a");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 1);
		List<CompletableFuture<Void>> queued = queuedDones("b", "c", "d");
		this.store.pass();
		first.get(5, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 2);
		this.store.fail();
		this.store.pass();
		for (CompletableFuture<Void> done : queued) {
			assertThatThrownBy(() -> done.get(5, TimeUnit.SECONDS)).hasRootCauseMessage("done failed");
		}
		assertThat(this.store.calls).containsExactly("done [a#1]", "done [b#2, c#3, d#4]");
		// Their leases run out in the store; the handle holds them no more.
		assertThat(this.store.heldCount()).isEqualTo(3);
		assertThat(this.book.isEmpty()).isTrue();
	}

	private void holding(String... items) {
		for (String item : items) {
			assertThat(this.book.take(item, this.store.lease(item))).isEqualTo(LeaseBook.Taken.HELD);
		}
	}

	private CompletableFuture<Void> done(String item) {
		return Waiters.<Void>start(() -> {
			this.releases.done(item);
			return null;
		}).result();
	}

	/**
	 * Dones made one after the other while a call is under way, each waiting (queued)
	 * before the next is made.
	 */
	private List<CompletableFuture<Void>> queuedDones(String... items) {
		List<CompletableFuture<Void>> dones = new ArrayList<>();
		for (String item : items) {
			Waiters.Waiter<Void> waiter = Waiters.start(() -> {
				this.releases.done(item);
				return null;
			});
			waiter.awaitWaiting();
			dones.add(waiter.result());
		}
		return dones;
	}

}
