package dev.workqueue.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

import dev.workqueue.ItemCodec;
import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.store.ClaimDriver;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.time.Nanos;

/**
 * How a Redis handle claims items for the engine's {@link dev.workqueue.store.ItemTaker}:
 * one get script ({@link QueueLayout#get}, or {@link QueueLayout#doneGet} carrying the
 * owed dones) leases up to {@link QueueLayout#maxLeases} items, each under its own token
 * ({@link LeaseTokens#nth}).
 * <p>
 * A get interrupted while it waits for its answer, or whose answer does not come within
 * the command timeout, throws, and leases nothing for good: if the answer comes later,
 * its items are handed back at once; if it never comes (the connection dropped), the
 * tokens are remembered ({@link LeaseReleases#orphan}) and the {@link QueueTimer} looks
 * for their items and hands them back. A lease confirmed late is renewed alone, one
 * script per item. Thread-safe: it keeps no state but a counter.
 *
 * @param <T> the item type
 */
final class ItemClaims<T> implements ClaimDriver<RedisLease> {

	private static final System.Logger logger = System.getLogger(ItemClaims.class.getName());

	private final ItemCodec<T> codec;

	private final QueueScripts scripts;

	private final LeaseTokens tokens;

	private final LeaseReleases<T, RedisLease> releases;

	private final HandleLifecycle lifecycle;

	private final Duration lease;

	private final long leaseNanos;

	private final String leaseMicros;

	/** The starvation timeout in µs of a priority queue's get, -1 for none. */
	private final String starvationMicros;

	private final LongAdder deadLettered = new LongAdder();

	/** The given-up bound's script arguments ({@link RedisInspection#boundArgs}). */
	private final String[] givenUp;

	ItemClaims(ItemCodec<T> codec, QueueScripts scripts, LeaseTokens tokens, LeaseReleases<T, RedisLease> releases,
			HandleLifecycle lifecycle, Duration lease, Duration starvationTimeout, GivenUpBound givenUp) {
		this.codec = codec;
		this.scripts = scripts;
		this.tokens = tokens;
		this.releases = releases;
		this.lifecycle = lifecycle;
		this.lease = lease;
		this.leaseNanos = Nanos.of(lease);
		this.leaseMicros = Long.toString(this.leaseNanos / 1000);
		this.starvationMicros = (starvationTimeout != null) ? Long.toString(Nanos.of(starvationTimeout) / 1000) : "-1";
		this.givenUp = RedisInspection.boundArgs(givenUp);
	}

	@Override
	public int claimLimit() {
		return this.scripts.layout().maxLeases;
	}

	@Override
	public Claim<RedisLease> claim(int count, List<RedisLease> owedDones, long sentNanos) throws InterruptedException {
		String token = this.tokens.next();
		QueueLayout layout = this.scripts.layout();
		int apart = owedDones.size() - QueueLayout.DONE_BATCH;
		if (apart > 0) {
			// More dones than one script ends: the first end in scripts of their own,
			// first.
			this.scripts.done(owedDones.subList(0, apart));
		}
		List<RedisLease> riding = owedDones.subList(Math.max(0, apart), owedDones.size());
		int first = riding.isEmpty() ? 0 : 1;
		CompletableFuture<List<Object>> answer = this.scripts.send(riding.isEmpty() ? layout.get : layout.doneGet,
				layout.getArgs(riding, this.leaseMicros, token, count, this.starvationMicros));
		try {
			return new Leased(this.scripts.answerInterruptibly(answer), layout, token, first, sentNanos);
		}
		catch (RedisQueueException | InterruptedException ex) {
			// The script may run all the same: what it leases is handed back. Counted as
			// a call under way, so that the handle keeps its link until the answer is in.
			this.lifecycle.enterAlways();
			answer.whenComplete((late, failure) -> orphanLate(late, failure, token, count, first));
			throw ex;
		}
	}

	@Override
	public String who() {
		return this.scripts.who();
	}

	@Override
	public long deadLettered() {
		return this.deadLettered.sum();
	}

	/**
	 * The answer of a get its caller gave up on, on the client's event loop: the timer
	 * hands back what it leased (or, with no answer, looks for it). Nothing is sent from
	 * here: the event loop must not wait for a connection.
	 */
	private void orphanLate(List<Object> late, Throwable failure, String token, int count, int first) {
		try {
			int group = this.scripts.layout().replyGroup();
			for (int n = 1; n <= count; n++) {
				int at = first + (n - 1) * group;
				if (failure != null) {
					this.releases.orphan(RedisLease.orphan(null, LeaseTokens.nth(token, n)));
				}
				else if (at < late.size()) {
					this.releases.orphan(RedisLease.orphan((String) late.get(at), LeaseTokens.nth(token, n)));
				}
			}
		}
		finally {
			this.lifecycle.exit();
		}
	}

	/**
	 * A get's reply: after the dones' answer if dones rode with it, one group of fields
	 * per item leased ({@link QueueLayout#replyGroup}), the item's token the get's
	 * token's {@code n}th.
	 */
	private final class Leased implements Claim<RedisLease> {

		private final List<Object> reply;

		private final QueueLayout layout;

		private final String token;

		private final int first;

		private final int group;

		private final long validUntilNanos;

		Leased(List<Object> reply, QueueLayout layout, String token, int first, long sentNanos) {
			this.reply = reply;
			this.layout = layout;
			this.token = token;
			this.first = first;
			this.group = layout.replyGroup();
			this.validUntilNanos = Nanos.add(sentNanos, ItemClaims.this.leaseNanos);
		}

		private int at(int n) {
			return this.first + n * this.group;
		}

		private String token(int n) {
			return LeaseTokens.nth(this.token, n + 1);
		}

		@Override
		public int size() {
			return (this.reply.size() - this.first) / this.group;
		}

		@Override
		public String encoded(int n) {
			return (String) this.reply.get(at(n));
		}

		@Override
		public int priority(int n) {
			return this.layout.priority(this.reply, at(n));
		}

		@Override
		public long queuedNanos(int n) {
			return (Long) this.reply.get(at(n) + 1) * 1000;
		}

		@Override
		public ItemTrace trace(int n) {
			return this.layout.trace(this.reply, at(n));
		}

		@Override
		public long dueInNanos() {
			return -1;
		}

		@Override
		public RedisLease lease(int n, long nowNanos) {
			return new RedisLease(encoded(n), token(n), nowNanos, this.validUntilNanos);
		}

		/**
		 * Renews this one lease: one script, paid by slow decodes and late answers only.
		 */
		@Override
		public boolean confirm(int n, long elapsedNanos) {
			String encoded = encoded(n);
			List<String> lost;
			try {
				lost = ItemClaims.this.scripts.run(LuaScript.RENEW, ItemClaims.this.leaseMicros, encoded, token(n));
			}
			catch (RedisQueueException ex) {
				// Not sure either way: not handed out, and handed back when Redis
				// answers.
				ItemClaims.this.releases.orphan(RedisLease.orphan(encoded, token(n)));
				return false;
			}
			if (lost.isEmpty()) {
				return true;
			}
			logger.log(Level.WARNING,
					who() + " did not hand out an item whose lease ran out while its codec " + ItemClaims.this.codec
							+ " decoded it (" + Duration.ofNanos(elapsedNanos) + " after its get, with a lease of "
							+ ItemClaims.this.lease
							+ "): another instance may hold it; a decode must take a small part of the lease");
			return false;
		}

		@Override
		public void deadLetter(int n, Throwable cause) {
			String encoded = encoded(n);
			ItemClaims.this.deadLettered.increment();
			logger.log(Level.WARNING, who() + " gave up on a payload of " + encoded.length()
					+ " characters that its codec cannot decode, or whose item's hashCode or equals throws (kept as a"
					+ " given-up record)", cause);
			try {
				ItemClaims.this.scripts.run(LuaScript.DEAD_LETTER, encoded, token(n), String.valueOf(cause),
						ItemClaims.this.tokens.holder(), ItemClaims.this.givenUp[0], ItemClaims.this.givenUp[1]);
			}
			catch (RedisQueueException ex) {
				// Not leased to nobody: handed back, it comes to this again.
				ItemClaims.this.releases.orphan(RedisLease.orphan(encoded, token(n)));
			}
		}

		@Override
		public void taken() {
			// Nothing kept.
		}

	}

}
