package dev.workqueue.redis;

import java.util.List;

import dev.workqueue.store.ReleaseDriver;

/**
 * How Redis ends leases, for the engine's {@link dev.workqueue.store.LeaseReleases}: the
 * layout's {@code done} script (many leases in one, up to {@link QueueLayout#DONE_BATCH})
 * and {@code release} script, each lease fenced by its token. Redis forgets limiter
 * history at once, so no forget is ever deferred to a lease. Thread-safe: it keeps no
 * state of its own.
 */
final class ReleaseScripts implements ReleaseDriver<RedisLease> {

	private final QueueScripts scripts;

	ReleaseScripts(QueueScripts scripts) {
		this.scripts = scripts;
	}

	@Override
	public void done(List<RedisLease> leases) {
		this.scripts.done(leases);
	}

	@Override
	public void handBack(RedisLease lease, long delayNanos) {
		release(lease, Delays.micros(delayNanos), "0");
	}

	/**
	 * One release each, at once, back where the list layout leased it from, its head: the
	 * last lease first, so that they end in the order given (the priority layout keeps no
	 * place: its items line up at the back of their priority). Every lease is tried
	 * before the first failure throws. Redis locks nothing: none is left held.
	 */
	@Override
	public List<RedisLease> handBackInPlace(List<RedisLease> leases) {
		RedisQueueException first = null;
		for (int i = leases.size() - 1; i >= 0; i--) {
			try {
				handBackInPlace(leases.get(i));
			}
			catch (RedisQueueException ex) {
				first = (first != null) ? first : ex;
			}
		}
		if (first != null) {
			throw first;
		}
		return List.of();
	}

	/**
	 * Hands one lease back at once, in its place in line (see
	 * {@link #handBackInPlace(List)}).
	 * @param lease the lease
	 */
	void handBackInPlace(RedisLease lease) {
		release(lease, "0", "1");
	}

	private void release(RedisLease lease, String delayMicros, String inPlace) {
		this.scripts.run(this.scripts.layout().release, lease.encoded(), lease.token(), delayMicros, inPlace);
	}

}
