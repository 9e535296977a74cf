package dev.workqueue.store;

import java.util.List;

import dev.workqueue.time.Clock;

/**
 * A group's linger for the callers of its previous batch ({@link CallGroup.Linger}): the
 * handle's adds, made by a few threads that each add again as soon as their last add
 * returns (producers in a loop, a batch job). Without it their calls alternate between
 * two halves: those that return while the others' batch is written queue behind it, and
 * each batch carries half the callers it could in the same round trip (4 producers adding
 * one item per call gave 2.3 adds per PostgreSQL commit). With it, the leader of the next
 * batch waits for the previous batch's callers to come back, so all of them ride in one.
 * <p>
 * <b>Whom it waits for.</b> When a batch's answer comes, the next batch can expect the
 * requests queued by then and one more from each call the batch finished (its callers,
 * coming back); a leader that finds fewer queued waits until that many are, or the bound
 * ({@link LingerPace}: half the smoothed round trip after the answer, at most 1 ms)
 * passes. A caller alone (its call the batch's only one, nothing queued meanwhile: one
 * thread adding in a loop, one item or many per call) is never waited for, nor is a
 * leader that comes after the bound. A linger that catches nobody backs off. It does not
 * look at shutdown: a batch in flight then may wait once, at most the bound, for callers
 * that will not come.
 * <p>
 * <b>Concurrency.</b> Its group asks and tells it under the group's lock, one leader at a
 * time: plain fields. One linger serves one group.
 */
public final class CallerLinger implements CallGroup.Linger<Object> {

	/** A real-time device: a fake clock of the queue's must not hold it up. */
	private final Clock realTime;

	private final LingerPace pace = new LingerPace();

	/** When the batch being written was handed to the writer. */
	private long sentNanos;

	/** How many requests the next batch expects, its leader's own included. */
	private int expected;

	/** How many were queued when the linger to judge began, or -1 if none did. */
	private int lingeredFrom = -1;

	/** Creates a linger timed on the system clock. */
	public CallerLinger() {
		this(Clock.system());
	}

	CallerLinger(Clock realTime) {
		this.realTime = realTime;
	}

	@Override
	public long boundNanos(List<?> queued) {
		if (queued.size() >= this.expected) {
			return 0;
		}
		long boundNanos = this.pace.boundNanos(Long.MAX_VALUE, this.realTime.nanoTime());
		if (boundNanos > 0) {
			this.lingeredFrom = queued.size();
		}
		return boundNanos;
	}

	@Override
	public boolean expectsMore(List<?> queued) {
		return queued.size() < this.expected;
	}

	@Override
	public void writing(int requests) {
		if (this.lingeredFrom >= 0) {
			this.pace.judge(requests > this.lingeredFrom);
			this.lingeredFrom = -1;
		}
		this.sentNanos = this.realTime.nanoTime();
	}

	@Override
	public void written(int finishedCalls, List<?> queued) {
		this.pace.answered(this.sentNanos, this.realTime.nanoTime());
		// Each caller it finished may come back with a request, at least one.
		this.expected = queued.size() + finishedCalls;
	}

}
