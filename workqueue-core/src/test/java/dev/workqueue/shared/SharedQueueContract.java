package dev.workqueue.shared;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueueStats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The rules of every shared store, written once: core's test jar holds them, and each
 * store's test class ({@code RedisSharedQueueContractTests},
 * {@code PostgresSharedQueueContractTests}) runs them by saying how to make a
 * {@link SharedStore} for a test. Handles of one queue stand for the instances of several
 * processes: each has connections of its own, and the faults of a network or a paused
 * machine are made on its link by a {@link FaultProxy}; a paused JVM is a real one
 * ({@link QueueProcess}). Faults only the store can make are optional hooks of
 * {@link SharedStore}; a test that needs a hook the store lacks is skipped with the
 * reason.
 * <p>
 * Leases are short (1 second) so that the fault tests take seconds; time here is the real
 * time the stores' leases run on, and every wait has a deadline. The first rule is "never
 * two live holders": at no instant do two handles both hold an item under a live lease. A
 * holder's lease can only run out after its renewals stopped reaching the store, so a
 * test checks that another handle gets an item only after the holder's link failed, and
 * that what the former holder does later (its late {@code done}) changes nothing.
 */
public abstract class SharedQueueContract extends SharedQueueRules {

	private final List<FaultProxy> proxies = new ArrayList<>();

	private final List<QueueProcess> processes = new ArrayList<>();

	@Override
	@AfterEach
	void closeStore() throws Exception {
		try {
			for (QueueProcess process : this.processes) {
				process.close();
			}
			this.proxies.forEach(FaultProxy::release);
			this.store.close();
		}
		finally {
			this.proxies.forEach(FaultProxy::close);
		}
	}

	/** A handle whose connections go through {@code proxy}. */
	private DelayingQueue<String> handle(FaultProxy proxy) {
		return this.store.open(LEASE, proxy.port());
	}

	private FaultProxy proxy() throws Exception {
		FaultProxy proxy = new FaultProxy(this.store.server());
		this.proxies.add(proxy);
		return proxy;
	}

	// Faults of the store: another session's row lock

	@Test
	@Timeout(60)
	void aHeldItemWhoseRowIsLockedKeepsItsHolderTheOtherLeasesRenewAndAnUnrelatedDoneDoesNotWait() throws Exception {
		SharedStore.RowLocks rows = hook(this.store.rowLocks(), "lock an item's row from another session");
		DelayingQueue<String> holder = handle();
		DelayingQueue<String> other = handle();
		List<String> items = IntStream.range(0, 5).mapToObj((i) -> "item-" + i).toList();
		other.addAll(items);
		for (int i = 0; i < items.size(); i++) {
			take(holder);
		}
		AtomicLong doneMillis = new AtomicLong(-1);
		CompletableFuture<Void> unrelatedDone;
		try (AutoCloseable lock = rows.lock("item-0")) {
			long start = System.nanoTime();
			unrelatedDone = CompletableFuture.runAsync(() -> {
				holder.done("item-4");
				doneMillis.set(millisSince(start));
			});
			assertThat(other.poll(LEASE.multipliedBy(4)))
				.as("handed to another handle while the holder lives and one of its rows is locked")
				.isNull();
		}
		unrelatedDone.get(SOON.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(doneMillis.get()).as("ms the done of an unlocked item took while a row was locked")
			.isLessThan(LEASE.toMillis() / 2);
		for (String item : items.subList(0, 4)) {
			holder.done(item);
		}
		assertThat(other.poll(LEASE.multipliedBy(2))).as("an item back after its done").isNull();
	}

	// A done that returned

	@Test
	@Timeout(120)
	void aDoneThatReturnedIsNeverUndoneByAFailureAfterIt() throws Exception {
		Duration lease = LEASE.multipliedBy(2);
		FaultProxy proxy = proxy();
		DelayingQueue<String> faulted = this.store.open(lease, proxy.port());
		DelayingQueue<String> other = this.store.open(lease);
		int count = 300;
		other.addAll(IntStream.range(0, count).mapToObj((i) -> "item-" + i).toList());
		Map<String, Long> doneReturned = new ConcurrentHashMap<>();
		Set<String> finished = ConcurrentHashMap.newKeySet();
		List<String> violations = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger cuts = new AtomicInteger();
		AtomicInteger failures = new AtomicInteger();
		AtomicBoolean running = new AtomicBoolean(true);
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			DelayingQueue<String> queue = (i < 3) ? faulted : other;
			boolean cutsAfterDone = i < 3;
			threads.add(start("worker-" + i, () -> {
				while (running.get()) {
					try {
						String item = queue.poll(Duration.ofMillis(200));
						if (item == null) {
							continue;
						}
						if (doneReturned.containsKey(item)) {
							violations.add(item + " handed out " + millisSince(doneReturned.get(item))
									+ " ms after its done returned");
						}
						finished.add(item);
						queue.done(item);
						doneReturned.putIfAbsent(item, System.nanoTime());
						if (cutsAfterDone && ThreadLocalRandom.current().nextInt(10) == 0) {
							// The handle's connections end right after a done returned,
							// with its next claim (maybe) on the way.
							cuts.addAndGet(proxy.cut());
						}
					}
					catch (RuntimeException ex) {
						failures.incrementAndGet();
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			}));
		}
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (finished.size() < count && System.nanoTime() < until) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(100, 500)));
			cuts.addAndGet(proxy.cut());
		}
		// Whatever a lost claim or a lost lease hands back comes back within a lease or
		// two: the workers go on meanwhile, and would find a done undone.
		observe(lease.multipliedBy(3));
		running.set(false);
		for (Thread thread : threads) {
			thread.join(SOON.toMillis());
		}
		assertThat(cuts.get()).as("connections cut").isPositive();
		assertThat(violations)
			.as("items handed out again after a done returned (%d cuts, %d failed calls)", cuts.get(), failures.get())
			.isEmpty();
		assertThat(finished).as("items handed out and done (the done returned or failed)").hasSize(count);
	}

	/** Lets the test's threads run for {@code window}: a window to watch, not a wait. */
	private static void observe(Duration window) {
		long until = System.nanoTime() + window.toNanos();
		for (long left = window.toNanos(); left > 0; left = until - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

	// A claim's late answer

	@Test
	@Timeout(60)
	void anItemWhoseLeaseRanOutBeforeItsClaimsAnswerArrivedIsNeverHandedOut() throws Exception {
		FaultProxy proxy = proxy();
		DelayingQueue<String> late = handle(proxy);
		DelayingQueue<String> other = handle();
		// Three rounds: where the store's answer to a late claim depends on timing, one
		// round may miss it.
		for (String item : List.of("x", "y", "z")) {
			other.add(item);
			proxy.holdAnswerTo(this.store.claimMarker(), LEASE.multipliedBy(4));
			CompletableFuture<String> lateTake = pollAsync(late, LEASE.multipliedBy(6));
			// The claim ran in the store and leased the item; its answer is on hold. Once
			// its lease ran out, the item is ready again and another handle gets it.
			assertThat(other.poll(LEASE.multipliedBy(3))).as("the item back once its lease ran out").isEqualTo(item);
			assertThat(lateTake.get(SOON.toMillis(), TimeUnit.MILLISECONDS))
				.as("handed out by a claim whose answer came after its lease ran out")
				.isNotEqualTo(item);
			assertThat(late.poll(LEASE)).as("handed out later by that claim, while another handle holds it")
				.isNotEqualTo(item);
			other.done(item);
		}
	}

	// Never two live holders

	@Test
	@Timeout(120)
	void neverTwoLiveHoldersWhenHoldersStallPastTheirLease() throws Exception {
		// Faults go on (with more items) until a stall has run a held item's lease out:
		// whether one does within the first items is up to chance.
		HoldLedger ledger = stress((proxy) -> proxy.stall(LEASE.multipliedBy(2)), LEASE.multipliedBy(2), 1200,
				(holds) -> holds.itemsHeldAgain() > 0);
		assertThat(ledger.violations()).as("holds that overlap a live hold").isEmpty();
		assertThat(ledger.itemsHeldAgain()).as("items handed out again after a stall ran a lease out").isPositive();
	}

	@Test
	@Timeout(120)
	void neverTwoLiveHoldersWhenHoldersConnectionsAreTerminated() throws Exception {
		HoldLedger ledger = stress(FaultProxy::cut, Duration.ZERO, 600, (holds) -> true);
		assertThat(ledger.violations()).as("holds that overlap a live hold").isEmpty();
	}

	/**
	 * Three handles, each behind a proxy, two workers each, process 300 items (each held
	 * about 20 ms) while every {@code everyMillis / 2} (on average) one handle's link
	 * suffers {@code fault}, which lasts {@code lasting}; while {@code enough} does not
	 * hold of the ledger once they are done, 50 more items at a time (for up to a minute
	 * in all).
	 * @return the ledger of their holds
	 */
	private HoldLedger stress(Consumer<FaultProxy> fault, Duration lasting, int everyMillis,
			Predicate<HoldLedger> enough) throws Exception {
		int count = 300;
		List<FaultProxy> links = new ArrayList<>();
		List<DelayingQueue<String>> handles = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			links.add(proxy());
			handles.add(handle(links.get(i)));
		}
		DelayingQueue<String> producer = handle();
		producer.addAll(IntStream.range(0, count).mapToObj((i) -> "item-" + i).toList());
		HoldLedger ledger = new HoldLedger();
		Set<String> finished = ConcurrentHashMap.newKeySet();
		AtomicBoolean running = new AtomicBoolean(true);
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			int index = i / 2;
			DelayingQueue<String> queue = handles.get(index);
			threads.add(start("worker-" + i, () -> {
				while (running.get()) {
					String item;
					try {
						item = queue.poll(Duration.ofMillis(200));
					}
					catch (InterruptedException ex) {
						return;
					}
					catch (RuntimeException ex) {
						continue;
					}
					if (item == null) {
						continue;
					}
					long from = System.nanoTime();
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
					try {
						finished.add(item);
						queue.done(item);
					}
					catch (RuntimeException ex) {
						// The item comes back once its lease runs out.
					}
					finally {
						ledger.held(item, index, from, System.nanoTime());
					}
				}
			}));
		}
		IntConsumer faultOne = (index) -> {
			long nowNanos = System.nanoTime();
			ledger.faulted(index, nowNanos, nowNanos + lasting.toNanos());
			fault.accept(links.get(index));
		};
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while ((finished.size() < count || !enough.test(ledger)) && System.nanoTime() < until) {
			if (finished.size() >= count) {
				producer.addAll(IntStream.range(count, count + 50).mapToObj((i) -> "item-" + i).toList());
				count += 50;
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(everyMillis)));
			faultOne.accept(ThreadLocalRandom.current().nextInt(3));
		}
		links.forEach(FaultProxy::release);
		observe(LEASE.multipliedBy(2));
		running.set(false);
		for (Thread thread : threads) {
			thread.join(SOON.toMillis());
		}
		assertThat(finished).as("items handed out and done (the done returned or failed)").hasSize(count);
		return ledger;
	}

	@Test
	@Timeout(90)
	void aPausedHoldersLateDoneChangesNothingAndNobodyElseHeldTheItemWhileItRan() throws Exception {
		QueueProcess paused = process();
		DelayingQueue<String> other = handle();
		DelayingQueue<String> third = handle();
		other.add("x");
		assertThat(paused.send("take " + SOON.toMillis(), SOON.multipliedBy(2))).isEqualTo("x");
		assertThat(other.poll(LEASE.multipliedBy(3))).as("handed out while its holder's JVM runs").isNull();
		paused.pause();
		assertNoLeaseOutlivesItsHolderByMoreThanALease();
		assertThat(other.poll(LEASE.multipliedBy(10))).as("back once the paused holder's lease ran out").isEqualTo("x");
		paused.resume();
		assertThat(paused.send("done x", SOON)).isEqualTo("x");
		assertThat(third.poll(LEASE.multipliedBy(3)))
			.as("handed out while its new holder lives, after the former holder's late done")
			.isNull();
		assertThat(paused.send("take " + LEASE.toMillis(), SOON)).as("taken back by the former holder").isEqualTo("-");
		other.done("x");
		assertThat(third.poll(LEASE)).as("back after its holder's done").isNull();
	}

	// Processes killed

	@Test
	@Timeout(90)
	void itemsAKilledProcessHeldComeBackWithinTheirLeaseAndTheSurvivorProcessesThem() throws Exception {
		int consumers = 8;
		QueueProcess killed = process();
		DelayingQueue<String> survivor = handle();
		// Every consumer waits before the items come: one claim leases several.
		assertThat(killed.send("hold " + consumers, SOON)).isEqualTo(Integer.toString(consumers));
		List<String> items = IntStream.range(0, consumers).mapToObj((i) -> "item-" + i).toList();
		survivor.addAll(items);
		await().atMost(SOON.multipliedBy(2)).until(() -> got(killed).size() == consumers);
		killed.kill();
		long killedAt = System.nanoTime();
		assertNoLeaseOutlivesItsHolderByMoreThanALease();
		List<String> back = new ArrayList<>();
		for (int i = 0; i < consumers; i++) {
			back.add(take(survivor));
		}
		assertThat(millisSince(killedAt)).as("ms from the kill until the survivor had every item back")
			.isLessThanOrEqualTo(LEASE.plusSeconds(3).toMillis());
		assertThat(back).containsExactlyInAnyOrderElementsOf(items);
		items.forEach(survivor::done);
		assertThat(survivor.poll(LEASE)).as("an item back after its done").isNull();
	}

	@Test
	@Timeout(180)
	void threeProcessesShareTheQueueOneIsKilledEveryItemIsProcessedAndNoneHasTwoLiveHolders() throws Exception {
		int count = 600;
		DelayingQueue<String> producer = handle();
		QueueProcess victim = process();
		// The victim's first item is a stuck job: held, its lease renewed, until the
		// kill.
		victim.send("work 2 hang", SOON);
		producer.add("item-0");
		await().atMost(SOON.multipliedBy(3)).until(() -> got(victim).contains("item-0"));
		List<QueueProcess> workers = List.of(process(), process());
		for (QueueProcess worker : workers) {
			worker.send("work 2", SOON);
		}
		producer.addAll(IntStream.range(1, count).mapToObj((i) -> "item-" + i).toList());
		List<QueueProcess> all = List.of(victim, workers.get(0), workers.get(1));
		awaitHeld(all, count / 3);
		assertThat(got(workers)).as("handed out again while its holder lives").doesNotContain("item-0");
		victim.kill();
		long killedAt = System.nanoTime();
		assertNoLeaseOutlivesItsHolderByMoreThanALease();
		Set<String> stranded = new HashSet<>(got(victim));
		stranded.removeAll(held(List.of(victim)));
		assertThat(stranded).contains("item-0");
		// A done under way at the kill may have ended its item before the JVM could say
		// so: then nothing brings the item back, and the store holds nothing of it.
		Set<String> doneUnderWay = ending(victim);
		doneUnderWay.retainAll(stranded);
		awaitFinished(all, count, doneUnderWay, producer, this.store);
		HoldLedger ledger = new HoldLedger();
		for (int i = 0; i < all.size(); i++) {
			record(all.get(i), i, ledger);
		}
		// The killed JVM's holds that no done ended ended with it.
		for (String line : victim.events()) {
			String[] got = line.split(" ");
			if (got[0].equals("got") && stranded.contains(got[1])) {
				ledger.held(got[1], 0, Long.parseLong(got[2]), killedAt);
			}
		}
		assertThat(ledger.violations()).as("holds that overlap a live hold").isEmpty();
		Map<String, Long> handOuts = gotLines(all).stream()
			.collect(Collectors.groupingBy((line) -> line.split(" ")[1], Collectors.counting()));
		Set<String> victims = got(victim);
		assertThat(handOuts.entrySet()).filteredOn((entry) -> !victims.contains(entry.getKey()))
			.as("items the killed JVM never held: handed out once")
			.allSatisfy((entry) -> assertThat(entry.getValue()).as(entry.getKey()).isOne());
	}

	@Test
	@Timeout(120)
	void delayedItemsOutliveEveryHandleAndAFreshOneProcessesThem() throws Exception {
		DelayingQueue<String> producer = handle();
		List<QueueProcess> first = List.of(process(), process());
		for (QueueProcess worker : first) {
			worker.send("work 2", SOON);
		}
		List<String> items = IntStream.range(0, 20).mapToObj((i) -> "later-" + i).toList();
		for (String item : items) {
			producer.addAfter(item, LEASE.multipliedBy(3));
		}
		producer.shutDown();
		for (QueueProcess worker : first) {
			worker.kill();
		}
		assertThat(got(first)).as("handed out before they were due").isEmpty();
		QueueProcess fresh = process();
		fresh.send("work 2", SOON);
		await().atMost(Duration.ofSeconds(30)).until(() -> held(List.of(fresh)).size() == items.size());
		assertThat(held(List.of(fresh))).containsExactlyInAnyOrderElementsOf(items);
		assertThat(gotLines(List.of(fresh))).as("each handed out once").hasSize(items.size());
	}

	/** Waits until the processes finished {@code count} items, for up to a minute. */
	private static void awaitHeld(List<QueueProcess> processes, int count) {
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> held(processes).size() >= count);
		}
		catch (ConditionTimeoutException ex) {
			Set<String> held = held(processes);
			List<String> missing = IntStream.range(0, count)
				.mapToObj((i) -> "item-" + i)
				.filter((item) -> !held.contains(item))
				.limit(10)
				.toList();
			processes.forEach(QueueProcess::dumpThreads);
			throw new AssertionError(held.size() + " items finished within a minute, not " + count + " (not: " + missing
					+ ", what the processes said of them: " + eventsOf(processes, missing) + ") by " + processes, ex);
		}
	}

	/** On the store's clock, so that a loaded machine cannot make it fail or pass. */
	private void assertNoLeaseOutlivesItsHolderByMoreThanALease() throws Exception {
		assertThat(this.store.latestLease()).as("the killed JVM's leases")
			.hasValueSatisfying(
					(left) -> assertThat(left).as("time left of the latest lease").isLessThanOrEqualTo(LEASE));
	}

	/**
	 * Waits, for up to a minute, until the processes finished item-0 to item-(count - 1)
	 * and the queue holds nothing more, neither queued nor processing. An item of
	 * {@code doneUnderWay} (its done was under way when its JVM was killed) counts as
	 * finished unless it comes back: its done may have ended it before the kill.
	 */
	private static void awaitFinished(List<QueueProcess> processes, int count, Set<String> doneUnderWay,
			DelayingQueue<String> queue, SharedStore store) throws Exception {
		try {
			await().atMost(Duration.ofSeconds(60))
				.until(() -> unfinished(processes, count, doneUnderWay).isEmpty() && isEmpty(queue.stats()));
		}
		catch (ConditionTimeoutException ex) {
			List<String> missing = unfinished(processes, count, doneUnderWay).stream().limit(10).toList();
			throw new AssertionError("Not every item finished within a minute (not: " + missing
					+ ", what the processes said of them: " + eventsOf(processes, missing)
					+ "; done under way at the kill: " + doneUnderWay + "; the queue: " + queue.stats()
					+ "; the store holds of them: " + store.records(missing).orElse("not told") + ") by " + processes,
					ex);
		}
	}

	private static List<String> unfinished(List<QueueProcess> processes, int count, Set<String> doneUnderWay) {
		Set<String> held = held(processes);
		return IntStream.range(0, count)
			.mapToObj((i) -> "item-" + i)
			.filter((item) -> !held.contains(item) && !doneUnderWay.contains(item))
			.toList();
	}

	private static boolean isEmpty(WorkQueueStats stats) {
		return stats.depth() == 0 && stats.processing() == 0 && stats.waiting() == 0;
	}

	private QueueProcess process() throws Exception {
		QueueProcess process = QueueProcess.start(this.store, LEASE);
		this.processes.add(process);
		return process;
	}

	/**
	 * The processes' report lines about {@code items}, each with the JVM that wrote it.
	 */
	private static List<String> eventsOf(List<QueueProcess> processes, Collection<String> items) {
		return processes.stream()
			.flatMap((process) -> process.events()
				.stream()
				.filter((line) -> items.contains(line.split(" ")[1]))
				.map((line) -> "JVM " + process.pid() + ": " + line))
			.toList();
	}

	private static List<String> gotLines(List<QueueProcess> processes) {
		return processes.stream()
			.flatMap((process) -> process.events().stream())
			.filter((line) -> line.startsWith("got "))
			.toList();
	}

	/** The items the processes' consumers were handed. */
	private static Set<String> got(List<QueueProcess> processes) {
		return gotLines(processes).stream().map((line) -> line.split(" ")[1]).collect(Collectors.toSet());
	}

	private static Set<String> got(QueueProcess process) {
		return got(List.of(process));
	}

	/** The items whose done the process's consumers called (returned or not). */
	private static Set<String> ending(QueueProcess process) {
		return process.events()
			.stream()
			.filter((line) -> line.startsWith("ending "))
			.map((line) -> line.split(" ")[1])
			.collect(Collectors.toSet());
	}

	/** The items the processes' consumers finished (their done returned or failed). */
	private static Set<String> held(List<QueueProcess> processes) {
		return processes.stream()
			.flatMap((process) -> process.events().stream())
			.filter((line) -> line.startsWith("held "))
			.map((line) -> line.split(" ")[1])
			.collect(Collectors.toSet());
	}

	private static void record(QueueProcess process, int index, HoldLedger ledger) {
		for (String line : process.events()) {
			String[] held = line.split(" ");
			if (held[0].equals("held")) {
				ledger.held(held[1], index, Long.parseLong(held[2]), Long.parseLong(held[3]));
			}
		}
	}

	// Shutdown

	@Test
	void anAddAfterAHandlesShutDownWritesNothing() throws Exception {
		DelayingQueue<String> closed = handle();
		DelayingQueue<String> other = handle();
		closed.shutDown();
		ignoringFailure(() -> closed.add("late"));
		ignoringFailure(() -> closed.addAll(List.of("late-1", "late-2")));
		ignoringFailure(() -> closed.addAfter("later", Duration.ZERO));
		assertThat(other.poll(LEASE)).as("an item added after its handle's shutDown").isNull();
		assertThat(other.size()).isZero();
		other.add("late");
		assertThat(take(other)).isEqualTo("late");
		other.done("late");
	}

	@Test
	void oneHandlesShutDownLeavesTheOthersWorking() throws Exception {
		DelayingQueue<String> closed = handle();
		DelayingQueue<String> other = handle();
		closed.add("before");
		closed.shutDown();
		assertThat(take(other)).isEqualTo("before");
		other.add("after");
		other.addAfter("later", Duration.ofMillis(200));
		other.done("before");
		assertThat(take(other)).isEqualTo("after");
		assertThat(take(other)).isEqualTo("later");
		other.done("after");
		other.done("later");
		assertThat(other.poll(LEASE)).isNull();
	}

	// Leases that ran out

	@Test
	@Timeout(60)
	void anExpiredLeaseComesBackToOneHandleOnly() throws Exception {
		FaultProxy proxy = proxy();
		DelayingQueue<String> stalled = handle(proxy);
		DelayingQueue<String> second = handle();
		DelayingQueue<String> third = handle();
		second.add("x");
		assertThat(take(stalled)).isEqualTo("x");
		proxy.stall(LEASE.multipliedBy(6));
		CompletableFuture<String> bySecond = pollAsync(second, LEASE.multipliedBy(4));
		CompletableFuture<String> byThird = pollAsync(third, LEASE.multipliedBy(4));
		List<String> taken = new ArrayList<>(
				List.of(String.valueOf(bySecond.get(SOON.toMillis(), TimeUnit.MILLISECONDS)),
						String.valueOf(byThird.get(SOON.toMillis(), TimeUnit.MILLISECONDS))));
		assertThat(taken).as("what the two handles got meanwhile").containsExactlyInAnyOrder("x", "null");
		(("x".equals(taken.get(0))) ? second : third).done("x");
	}

	@Test
	@Timeout(60)
	void anItemWhoseHolderStoppedRenewingComesBackOnlyOnceItsLeaseRanOut() throws Exception {
		FaultProxy proxy = proxy();
		DelayingQueue<String> holder = handle(proxy);
		DelayingQueue<String> other = handle();
		DelayingQueue<String> third = handle();
		other.add("x");
		assertThat(take(holder)).isEqualTo("x");
		assertThat(other.poll(LEASE.multipliedBy(3))).as("handed out while its holder renews its lease").isNull();
		proxy.stall(LEASE.multipliedBy(8));
		long stalled = System.nanoTime();
		Duration left = this.store.latestLease().orElseThrow();
		assertThat(other.poll(LEASE.multipliedBy(4))).as("back once the stalled holder's lease ran out").isEqualTo("x");
		// The store's clock and this one may differ by the time a reading takes.
		assertThat(millisSince(stalled)).as("ms until it came back, its lease having %d ms left", left.toMillis())
			.isGreaterThanOrEqualTo(left.toMillis() - 50);
		assertThat(third.poll(LEASE.multipliedBy(2))).as("handed out while its new holder lives").isNull();
		other.done("x");
		assertThat(third.poll(LEASE)).as("back after its new holder's done").isNull();
	}

	@Test
	@Timeout(60)
	void aStaleDoneChangesNothing() throws Exception {
		FaultProxy proxy = proxy();
		DelayingQueue<String> former = handle(proxy);
		DelayingQueue<String> holder = handle();
		DelayingQueue<String> third = handle();
		holder.add("x");
		assertThat(take(former)).isEqualTo("x");
		proxy.stall(LEASE.multipliedBy(3));
		assertThat(holder.poll(LEASE.multipliedBy(5))).as("back once the stalled holder's lease ran out")
			.isEqualTo("x");
		proxy.release();
		ignoringFailure(() -> former.done("x"));
		assertThat(third.poll(LEASE.multipliedBy(2))).as("handed out after a stale done, its holder alive").isNull();
		holder.add("x");
		holder.done("x");
		assertThat(take(third)).as("re-added while held: back once, after its holder's done").isEqualTo("x");
		third.done("x");
		assertThat(third.poll(LEASE)).isNull();
	}

}
