package dev.workqueue.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.workqueue.spi.ItemTrace;

/**
 * An in-memory store for the tests of grouped calls: ready items in line, held items by
 * token (fenced as a real store's), every call recorded, and a gate that holds each call
 * until the test lets it through. Counts the claims in flight at once: the engine sends
 * one at a time. Thread-safe.
 */
final class GroupStore implements ClaimDriver<TestLease>, ReleaseDriver<TestLease> {

	static final long LEASE_NANOS = 30_000_000_000L;

	final List<String> calls = Collections.synchronizedList(new ArrayList<>());

	/** Calls that reached the store (past their record, before the gate). */
	final AtomicInteger entered = new AtomicInteger();

	/** Most claims seen in flight at once. */
	final AtomicInteger mostClaimsAtOnce = new AtomicInteger();

	private final AtomicInteger claimsInFlight = new AtomicInteger();

	/** Claims that leased an item. */
	final AtomicInteger claimsLeasing = new AtomicInteger();

	/** Items leased by claims. */
	final AtomicInteger claimed = new AtomicInteger();

	private volatile int claimLimit = 8;

	private final Semaphore gate = new Semaphore(0);

	private final Deque<String> ready = new ArrayDeque<>();

	private final Map<String, Long> held = new HashMap<>();

	private volatile boolean gated;

	/** The thread of the last claim that reached the store. */
	volatile Thread claimer;

	private volatile boolean failing;

	/** How long each call takes, as a round trip would. */
	private volatile long latencyNanos;

	private long tokens;

	/** Holds every call at the gate from now on. */
	void gate() {
		this.gated = true;
	}

	/** Lets every call through from now on. */
	void ungate() {
		this.gated = false;
		this.gate.release(1000);
	}

	/** Lets the next held call through. */
	void pass() {
		this.gate.release();
	}

	/** Every call from now on fails, once through the gate. */
	void fail() {
		this.failing = true;
	}

	/** The most items a claim leases from now on. */
	void claimLimit(int limit) {
		this.claimLimit = limit;
	}

	/** Each call from now on takes this long. */
	void latency(long nanos) {
		this.latencyNanos = nanos;
	}

	synchronized boolean holds(String item) {
		return this.held.containsKey(item);
	}

	synchronized void ready(String... items) {
		Collections.addAll(this.ready, items);
	}

	synchronized int readyCount() {
		return this.ready.size();
	}

	synchronized int heldCount() {
		return this.held.size();
	}

	/** Leases an item as a claim would, outside the engine. */
	synchronized TestLease lease(String item) {
		long token = ++this.tokens;
		this.held.put(item, token);
		return new TestLease(item, token);
	}

	@Override
	public int claimLimit() {
		return this.claimLimit;
	}

	@Override
	public Claim<TestLease> claim(int count, List<TestLease> owedDones, long sentNanos) throws InterruptedException {
		this.calls.add("claim " + count + (owedDones.isEmpty() ? "" : " done " + owedDones));
		int inFlight = this.claimsInFlight.incrementAndGet();
		this.mostClaimsAtOnce.accumulateAndGet(inFlight, Math::max);
		try {
			this.claimer = Thread.currentThread();
			// A claim waits at the gate as for a store's answer: interruptibly.
			pass("claim", true);
			List<String> items = new ArrayList<>();
			List<Long> leased = new ArrayList<>();
			synchronized (this) {
				owedDones.forEach(this::end);
				while (items.size() < count && !this.ready.isEmpty()) {
					String item = this.ready.poll();
					long token = ++this.tokens;
					this.held.put(item, token);
					items.add(item);
					leased.add(token);
				}
			}
			if (!items.isEmpty()) {
				this.claimsLeasing.incrementAndGet();
				this.claimed.addAndGet(items.size());
			}
			return new Answer(items, leased, sentNanos);
		}
		finally {
			this.claimsInFlight.decrementAndGet();
		}
	}

	@Override
	public void done(List<TestLease> leases) {
		this.calls.add("done " + leases);
		try {
			pass("done", false);
		}
		catch (InterruptedException ex) {
			throw new AssertionError(ex);
		}
		synchronized (this) {
			leases.forEach(this::end);
		}
	}

	@Override
	public synchronized void handBack(TestLease lease, long delayNanos) {
		backInPlace(lease);
	}

	@Override
	public synchronized List<TestLease> handBackInPlace(List<TestLease> leases) {
		leases.forEach(this::backInPlace);
		return List.of();
	}

	@Override
	public String who() {
		return "Group store";
	}

	@Override
	public long deadLettered() {
		return 0;
	}

	private void pass(String call, boolean interruptible) throws InterruptedException {
		this.entered.incrementAndGet();
		if (this.latencyNanos > 0) {
			LockSupport.parkNanos(this.latencyNanos);
		}
		if (this.gated && interruptible) {
			this.gate.acquire();
		}
		else if (this.gated) {
			this.gate.acquireUninterruptibly();
		}
		if (this.failing) {
			throw new IllegalStateException(call + " failed");
		}
	}

	/** A done, fenced by the token. Called holding the monitor. */
	private void end(TestLease lease) {
		this.held.remove(lease.encoded(), lease.token);
	}

	/** A hand-back, fenced by the token. Called holding the monitor. */
	private void backInPlace(TestLease lease) {
		if (this.held.remove(lease.encoded(), lease.token)) {
			this.ready.addFirst(lease.encoded());
		}
	}

	/** A claim's answer. */
	private record Answer(List<String> items, List<Long> tokens, long sentNanos) implements Claim<TestLease> {

		@Override
		public int size() {
			return this.items.size();
		}

		@Override
		public String encoded(int n) {
			return this.items.get(n);
		}

		@Override
		public int priority(int n) {
			return 0;
		}

		@Override
		public long queuedNanos(int n) {
			return 0;
		}

		@Override
		public ItemTrace trace(int n) {
			return null;
		}

		@Override
		public long dueInNanos() {
			return -1;
		}

		@Override
		public TestLease lease(int n, long nowNanos) {
			return new TestLease(this.items.get(n), this.tokens.get(n), nowNanos, this.sentNanos + LEASE_NANOS);
		}

		@Override
		public boolean confirm(int n, long elapsedNanos) {
			return true;
		}

		@Override
		public void deadLetter(int n, Throwable cause) {
			throw new IllegalStateException("The group store's items all decode");
		}

		@Override
		public void taken() {
		}

	}

}
