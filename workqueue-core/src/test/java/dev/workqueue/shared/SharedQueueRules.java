package dev.workqueue.shared;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.spi.SharedWorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The rules of every shared store that hold without a fault, written once: several
 * handles share one queue, a {@code done} names its lease (a stale one changes nothing,
 * and tokens never repeat), an item claimed anew while a worker of its handle still holds
 * it is parked, a handle hands its items back, shuts down alone, and passes the reporter
 * role on. {@link SharedQueueContract} adds the rules under faults; a store's test class
 * extends it and runs both. What only the store can do to its leases (read a token, end a
 * lease by hand, empty the store) goes through the optional {@link SharedStore#leases()}
 * hook; a test that needs it where the store lacks it is skipped with the reason.
 * <p>
 * Every handle of a test is its own instance, on the store's default clock, with the
 * short {@link #LEASE}: time here is real time, and every wait has a deadline.
 */
public abstract class SharedQueueRules {

	/** The lease of the handles of these tests. */
	protected static final Duration LEASE = Duration.ofSeconds(1);

	static final Duration SOON = Duration.ofSeconds(10);

	/** The store of the running test. */
	SharedStore store;

	/**
	 * Makes the store of one test: its own queue, nothing else in it.
	 * @return the store
	 * @throws Exception if it cannot be made
	 */
	protected abstract SharedStore newStore() throws Exception;

	@BeforeEach
	void openStore() throws Exception {
		this.store = newStore();
	}

	@AfterEach
	void closeStore() throws Exception {
		this.store.close();
	}

	/** A handle connected straight to the store. */
	DelayingQueue<String> handle() {
		return this.store.open(LEASE);
	}

	<H> H hook(Optional<H> hook, String what) {
		assumeTrue(hook.isPresent(), () -> this.store.name() + " cannot " + what);
		return hook.get();
	}

	static String take(DelayingQueue<String> queue) throws InterruptedException {
		String item = queue.poll(SOON);
		assertThat(item).as("an item within " + SOON).isNotNull();
		return item;
	}

	static long millisSince(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
	}

	static void ignoringFailure(Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			// Refused or ignored, either way nothing is written.
		}
	}

	static CompletableFuture<String> pollAsync(DelayingQueue<String> queue, Duration timeout) {
		CompletableFuture<String> result = new CompletableFuture<>();
		start("poll", () -> {
			try {
				result.complete(queue.poll(timeout));
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		});
		return result;
	}

	static Thread start(String name, Runnable task) {
		Thread thread = new Thread(task, "contract-" + name);
		thread.start();
		return thread;
	}

	private static SharedWorkQueue shared(WorkQueue<String> handle) {
		return handle.capability(SharedWorkQueue.class).orElseThrow();
	}

	private void assertNothingLeft(DelayingQueue<String> queue) throws Exception {
		assertThat(queue.poll(Duration.ZERO)).as("an item left").isNull();
		WorkQueueStats stats = queue.stats();
		assertThat(List.of(stats.depth(), stats.processing(), stats.waiting(), stats.pending()))
			.as("depth, processing, waiting, pending")
			.containsOnly(0);
		assertThat(this.store.latestLease()).as("a lease left").isEmpty();
	}

	// Several handles, one queue

	@Test
	void handlesShareOneQueueInTheOrderOfTheAddsAndAnItemIsHandedOutOnce() throws Exception {
		DelayingQueue<String> a = handle();
		DelayingQueue<String> b = handle();
		for (int i = 0; i < 20; i++) {
			((i % 2 == 0) ? a : b).add("item-" + i);
		}
		b.add("item-0");
		a.addAll(List.of("item-1", "item-2"));
		assertThat(a.size()).as("an item added twice while waiting is queued once").isEqualTo(20);
		for (int i = 0; i < 20; i++) {
			DelayingQueue<String> taker = (i % 3 == 0) ? b : a;
			assertThat(take(taker)).as("the %d-th item out", i).isEqualTo("item-" + i);
			taker.done("item-" + i);
		}
		assertNothingLeft(a);
		assertNothingLeft(b);
	}

	@Test
	void anItemAddedWhileAnotherHandleHoldsItRunsAgainOnlyAfterItsDone() throws Exception {
		DelayingQueue<String> holder = handle();
		DelayingQueue<String> other = handle();
		holder.add("x");
		assertThat(take(holder)).isEqualTo("x");
		other.add("x");
		other.add("x");
		assertThat(other.poll(Duration.ZERO)).as("never two holders").isNull();
		WorkQueueStats stats = other.stats();
		assertThat(stats.addedWhileProcessing()).isOne();
		assertThat(stats.pending()).as("client-go's depth counts it").isOne();
		assertThat(stats.processing()).isOne();
		assertThat(other.size()).isZero();
		other.done("x");
		assertThat(holder.stats().processing()).as("a done by a handle that does not hold the item").isOne();
		assertThat(other.poll(Duration.ZERO)).as("handed out after a done by a handle that does not hold it").isNull();
		holder.done("x");
		assertThat(take(other)).as("once more, after its holder's done").isEqualTo("x");
		other.done("x");
		assertNothingLeft(holder);
	}

	// Fencing: a done names its lease

	@Test
	void aStaleHoldersDoneChangesNothingNorEndsTheFreshLeaseOrItsDirtyMark() throws Exception {
		SharedStore.Leases leases = hook(this.store.leases(), "reach its leases");
		DelayingQueue<String> stale = handle();
		DelayingQueue<String> fresh = handle();
		DelayingQueue<String> third = handle();
		stale.add("x");
		assertThat(take(stale)).isEqualTo("x");
		String staleToken = leases.token("x");
		leases.expire("x");
		assertThat(take(fresh)).isEqualTo("x");
		String freshToken = leases.token("x");
		assertThat(freshToken).as("the fresh lease's token").isNotNull().isNotEqualTo(staleToken);
		// The stale handle's renewals find its lease lost: its worker still holds x, and
		// the handle goes on working.
		assertThat(third.poll(LEASE.multipliedBy(2))).as("handed out while its fresh holder lives").isNull();
		stale.add("y");
		assertThat(take(stale)).isEqualTo("y");
		fresh.add("x");
		stale.done("x");
		assertThat(leases.token("x")).as("the fresh holder's lease stands").isEqualTo(freshToken);
		assertThat(fresh.stats().processing()).as("x and y held").isEqualTo(2);
		assertThat(third.poll(Duration.ZERO)).as("still dirty under the fresh lease, not queued").isNull();
		stale.done("y");
		fresh.done("x");
		assertThat(take(third)).as("the fresh done queues it again").isEqualTo("x");
		third.done("x");
		assertNothingLeft(third);
	}

	@Test
	void tokensNeverRepeatAcrossHandlesNorAfterTheStoreIsEmptied() throws Exception {
		SharedStore.Leases leases = hook(this.store.leases(), "reach its leases");
		DelayingQueue<String> a = handle();
		DelayingQueue<String> b = handle();
		List<String> items = IntStream.range(0, 20).mapToObj((i) -> "item-" + i).toList();
		a.addAll(items);
		for (int i = 0; i < 10; i++) {
			take(a);
			take(b);
		}
		Set<String> tokens = new HashSet<>();
		for (String item : items) {
			tokens.add(leases.token(item));
		}
		assertThat(tokens).as("the tokens of 20 leases").hasSize(20).doesNotContainNull();
		leases.empty();
		DelayingQueue<String> fresh = handle();
		fresh.addAll(items.subList(0, 2));
		assertThat(List.of(take(fresh), take(fresh))).containsExactlyInAnyOrderElementsOf(items.subList(0, 2));
		String freshToken = leases.token("item-0");
		assertThat(tokens).as("tokens from before the store was emptied").doesNotContain(freshToken);
		items.forEach(a::done);
		items.forEach(b::done);
		assertThat(leases.token("item-0")).as("the lease taken after the store was emptied").isEqualTo(freshToken);
		assertThat(fresh.stats().processing()).isEqualTo(2);
		fresh.done("item-0");
		fresh.done("item-1");
		assertNothingLeft(fresh);
	}

	// Parking: an item claimed anew while a worker of its handle still holds it

	@Test
	@Timeout(60)
	void anItemClaimedAnewWhileItsHandlesWorkerHoldsItIsParkedAndRunsAgainAfter() throws Exception {
		SharedStore.Leases leases = hook(this.store.leases(), "reach its leases");
		DelayingQueue<String> handle = handle();
		DelayingQueue<String> other = handle();
		handle.add("x");
		assertThat(take(handle)).isEqualTo("x");
		String first = leases.token("x");
		leases.expire("x");
		assertThat(handle.poll(Duration.ofMillis(200))).as("its own worker still holds x: parked").isNull();
		assertThat(leases.token("x")).as("x leased anew, to the handle").isNotNull().isNotEqualTo(first);
		assertThat(other.poll(LEASE.multipliedBy(3))).as("the parked lease is renewed: nobody else gets x").isNull();
		handle.done("x");
		assertThat(take(other)).as("x runs again once the first worker is done").isEqualTo("x");
		assertThat(handle.poll(Duration.ZERO)).as("never two holders").isNull();
		other.done("x");
		assertNothingLeft(handle);
	}

	// Hand-back

	@Test
	@Timeout(60)
	void aHandleHandsBackOneItemForLaterOrAllAtOnceAndItsLateDoneChangesNothing() throws Exception {
		DelayingQueue<String> queue = handle();
		DelayingQueue<String> other = handle();
		queue.addAll(List.of("a", "b", "c"));
		assertThat(take(queue)).isEqualTo("a");
		assertThat(take(queue)).isEqualTo("b");
		SharedWorkQueue shared = shared(queue);
		Duration delay = LEASE.multipliedBy(2);
		long handedBack = System.nanoTime();
		assertThat(shared.handBack("b", delay)).isTrue();
		assertThat(shared.handBack("b", Duration.ZERO)).as("no longer held").isFalse();
		queue.shutDown();
		assertThat(shared.handBack()).as("what it still holds").isOne();
		assertThat(List.of(take(other), take(other))).containsExactlyInAnyOrder("a", "c");
		assertThat(take(other)).isEqualTo("b");
		assertThat(millisSince(handedBack)).as("ms until the item handed back for later came back")
			.isGreaterThanOrEqualTo(delay.toMillis());
		queue.done("a");
		assertThat(other.stats().processing()).as("a late done after a hand-back changes nothing").isEqualTo(3);
		for (String item : List.of("a", "b", "c")) {
			other.done(item);
		}
		assertNothingLeft(other);
	}

	// Shutdown

	@Test
	void whatAShutDownHandleAddedQueuedOrDelayedGoesToTheOthers() throws Exception {
		DelayingQueue<String> closed = handle();
		DelayingQueue<String> other = handle();
		closed.add("x");
		closed.addAfter("y", LEASE.dividedBy(2));
		closed.shutDown();
		assertThat(closed.poll(Duration.ZERO)).as("taken from a shut-down handle").isNull();
		ignoringFailure(() -> closed.add("ignored"));
		assertThat(take(other)).isEqualTo("x");
		assertThat(take(other)).isEqualTo("y");
		other.done("x");
		other.done("y");
		assertThat(other.poll(LEASE)).as("an add after its handle's shutDown").isNull();
		assertNothingLeft(other);
	}

	// The reporter of the shared gauges

	@Test
	@Timeout(60)
	void oneHandleAtATimeReportsTheSharedGaugesAndTheRolePassesOnAtShutdown() throws Exception {
		List<DelayingQueue<String>> handles = List.of(handle(), handle(), handle());
		await().atMost(SOON).until(() -> reporters(handles).size() == 1);
		int reporter = reporters(handles).get(0);
		handles.get(reporter).shutDown();
		assertThat(shared(handles.get(reporter)).reportsSharedGauges()).as("a shut-down handle reports").isFalse();
		await().atMost(SOON).until(() -> reporters(handles).size() == 1);
		assertThat(reporters(handles)).as("the handle that reports now").doesNotContain(reporter);
	}

	/** The indexes of the handles that report the shared gauges now. */
	private static List<Integer> reporters(List<DelayingQueue<String>> handles) {
		return IntStream.range(0, handles.size())
			.filter((i) -> shared(handles.get(i)).reportsSharedGauges())
			.boxed()
			.toList();
	}

}
