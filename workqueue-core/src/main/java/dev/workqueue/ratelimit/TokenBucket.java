package dev.workqueue.ratelimit;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * A token bucket: golang.org/x/time/rate's {@code Limiter} in Java. The bucket holds at
 * most {@code burst} tokens, starts full and refills at {@code ratePerSecond} tokens per
 * second; each event takes tokens from it.
 * <p>
 * Three ways to take tokens, differing in what happens when there are not enough:
 * <ul>
 * <li>{@link #allowN} takes them only if they are there now, and says whether it did;
 * <li>{@link #reserveN} always takes them, going into debt, and returns a
 * {@link Reservation} telling how long to wait before acting; a reservation that is not
 * acted on can be {@linkplain Reservation#cancel() cancelled};
 * <li>{@link #acquire} and {@link #tryAcquire} reserve and then block on the bucket's
 * {@link Clock} until the reservation's time comes.
 * </ul>
 * A rate of {@link Double#POSITIVE_INFINITY} means no limit: every reservation is ok with
 * zero delay, whatever the burst. A rate of 0 is legal: the initial burst, then nothing.
 * Asking for more than {@code burst} tokens at a finite rate is refused.
 * <p>
 * <b>How it works.</b> The bucket does not tick. It keeps the token count as of its last
 * update ({@code tokens}, negative while reservations are in debt) and the clock reading
 * of that update ({@code lastNanos}); a request first credits the time since then
 * ({@code elapsed * rate}, capped at {@code burst}), then subtracts its tokens. A deficit
 * becomes a wait of {@code deficit / rate}, rounded up to the nanosecond so that no one
 * acts before their tokens have accrued. Each request is O(1) and takes the bucket's lock
 * once; {@link #allowN} and {@link #tryAcquire} that fail change nothing. Cancelling
 * follows x/time/rate's {@code CancelAt}: a reservation whose time to act has not yet
 * passed gives its tokens back, less those reserved after it (they were granted against
 * its tokens and stay taken).
 * <p>
 * Thread-safe. One private lock guards {@code tokens}, {@code lastNanos},
 * {@code lastEventNanos} and every reservation's {@code cancelled} flag; the clock is
 * read inside it, so updates see non-decreasing readings. Blocking happens outside the
 * lock, through {@link Clock#sleepUntil}, so a {@code FakeClock} step releases a thread
 * blocked in {@link #acquire}.
 */
public final class TokenBucket {

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

	/** What {@link #take} returns when it grants nothing. */
	private static final long REFUSED = -1;

	private final double ratePerSecond;

	private final int burst;

	private final Clock clock;

	private final boolean unlimited;

	private final Object lock = new Object();

	/**
	 * Tokens as of {@code lastNanos}; negative while reservations wait. Guarded by lock.
	 */
	private double tokens;

	/**
	 * Clock reading at which {@code tokens} was last brought up to date. Guarded by lock.
	 */
	private long lastNanos;

	/** Time to act of the latest reservation, past or future. Guarded by lock. */
	private long lastEventNanos;

	/**
	 * Creates a full bucket on the system clock.
	 * @param ratePerSecond tokens added per second: zero, positive or
	 * {@link Double#POSITIVE_INFINITY} for no limit
	 * @param burst the bucket's capacity, zero or positive
	 * @throws IllegalArgumentException if {@code ratePerSecond} is negative or NaN, or
	 * {@code burst} is negative
	 */
	public TokenBucket(double ratePerSecond, int burst) {
		this(ratePerSecond, burst, Clock.system());
	}

	/**
	 * Creates a full bucket on {@code clock}.
	 * @param ratePerSecond tokens added per second: zero, positive or
	 * {@link Double#POSITIVE_INFINITY} for no limit
	 * @param burst the bucket's capacity, zero or positive
	 * @param clock the clock that refills the bucket and times waits
	 * @throws IllegalArgumentException if {@code ratePerSecond} is negative or NaN, or
	 * {@code burst} is negative
	 */
	public TokenBucket(double ratePerSecond, int burst, Clock clock) {
		this.ratePerSecond = Preconditions.requireRate(ratePerSecond, "ratePerSecond");
		this.burst = Preconditions.requireNonNegative(burst, "burst");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.unlimited = ratePerSecond == Double.POSITIVE_INFINITY;
		// Under the lock, so a bucket published without a happens-before edge still
		// starts full for a thread that takes the lock.
		synchronized (this.lock) {
			this.tokens = burst;
			this.lastNanos = clock.nanoTime();
			this.lastEventNanos = this.lastNanos;
		}
	}

	/**
	 * Reserves one token: {@code reserveN(1)}.
	 * @return the reservation
	 */
	public Reservation reserve() {
		return reserveN(1);
	}

	/**
	 * Takes {@code n} tokens, going into debt if needed, and returns when they may be
	 * used. The reservation is not {@linkplain Reservation#ok() ok}, and nothing is
	 * taken, when {@code n} exceeds the burst at a finite rate, or when the rate is 0 and
	 * the tokens left are too few (they would never come).
	 * @param n how many tokens, zero or positive
	 * @return the reservation
	 * @throws IllegalArgumentException if {@code n} is negative
	 */
	public Reservation reserveN(int n) {
		Preconditions.requireNonNegative(n, "n");
		if (this.unlimited) {
			return FixedReservation.IMMEDIATE;
		}
		TokenReservation reservation = reserveWithin(n, Long.MAX_VALUE);
		return (reservation != null) ? reservation : FixedReservation.REFUSED;
	}

	/**
	 * Takes one token if there is one now: {@code allowN(1)}.
	 * @return whether the token was taken
	 */
	public boolean allow() {
		return allowN(1);
	}

	/**
	 * Takes {@code n} tokens if they are all there now; otherwise takes none.
	 * @param n how many tokens, zero or positive
	 * @return whether the tokens were taken
	 * @throws IllegalArgumentException if {@code n} is negative
	 */
	public boolean allowN(int n) {
		Preconditions.requireNonNegative(n, "n");
		if (this.unlimited) {
			return true;
		}
		synchronized (this.lock) {
			return take(n, this.clock.nanoTime(), 0) != REFUSED;
		}
	}

	/**
	 * Takes one token, blocking on the bucket's clock until it is had. If interrupted
	 * while waiting, gives the token back (see {@link Reservation#cancel()}).
	 * @throws InterruptedException if the thread is interrupted on entry or while waiting
	 * @throws IllegalStateException if no token could ever come: a burst of 0, or a rate
	 * of 0 with the bucket empty
	 */
	public void acquire() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		if (this.unlimited) {
			return;
		}
		TokenReservation reservation = reserveWithin(1, Long.MAX_VALUE);
		if (reservation == null) {
			throw new IllegalStateException("acquire() could never succeed on " + this
					+ ((this.burst == 0) ? ": burst is 0" : ": rate is 0 and no token is left"));
		}
		waitFor(reservation);
	}

	/**
	 * Takes {@code n} tokens if it can do so within {@code timeout}, blocking on the
	 * bucket's clock until their time comes; otherwise returns {@code false} at once,
	 * taking nothing. If interrupted while waiting, gives the tokens back.
	 * @param n how many tokens, zero or positive; more than the burst at a finite rate
	 * returns {@code false}
	 * @param timeout how long this call may wait, measured on the bucket's clock; a
	 * negative timeout means zero
	 * @return whether the tokens were taken
	 * @throws InterruptedException if the thread is interrupted on entry or while waiting
	 * @throws IllegalArgumentException if {@code n} is negative
	 */
	public boolean tryAcquire(int n, Duration timeout) throws InterruptedException {
		Preconditions.requireNonNegative(n, "n");
		Objects.requireNonNull(timeout, "timeout");
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		if (this.unlimited) {
			return true;
		}
		TokenReservation reservation = reserveWithin(n, Math.max(0, Nanos.of(timeout)));
		if (reservation == null) {
			return false;
		}
		waitFor(reservation);
		return true;
	}

	/**
	 * Reserves one token and returns its delay, like {@code reserve().delay()} without
	 * allocating a reservation: the hot path of the bucket limiters' {@code when}.
	 */
	Duration reserveDelay() {
		if (this.unlimited) {
			return Duration.ZERO;
		}
		long waitNanos;
		synchronized (this.lock) {
			waitNanos = take(1, this.clock.nanoTime(), Long.MAX_VALUE);
		}
		return (waitNanos != REFUSED) ? Duration.ofNanos(waitNanos) : FOREVER;
	}

	private TokenReservation reserveWithin(int n, long maxWaitNanos) {
		long nowNanos;
		long waitNanos;
		synchronized (this.lock) {
			nowNanos = this.clock.nanoTime();
			waitNanos = take(n, nowNanos, maxWaitNanos);
		}
		return (waitNanos != REFUSED) ? new TokenReservation(n, Nanos.add(nowNanos, waitNanos)) : null;
	}

	private void waitFor(TokenReservation reservation) throws InterruptedException {
		try {
			this.clock.sleepUntil(reservation.timeToActNanos);
		}
		catch (InterruptedException ex) {
			reservation.cancel();
			throw ex;
		}
	}

	/**
	 * Takes {@code n} tokens if they can be had within {@code maxWaitNanos} of
	 * {@code nowNanos}. Caller holds the lock.
	 * @return the wait before the tokens may be used, or {@link #REFUSED} having taken
	 * nothing
	 */
	private long take(int n, long nowNanos, long maxWaitNanos) {
		if (n > this.burst) {
			return REFUSED;
		}
		double left = tokensAt(nowNanos) - n;
		long waitNanos = 0;
		if (left < 0) {
			if (this.ratePerSecond == 0 || maxWaitNanos == 0) {
				// The deficit would never be repaid, or not at once (its wait is
				// positive).
				return REFUSED;
			}
			waitNanos = nanosToAccrue(-left);
			if (waitNanos > maxWaitNanos) {
				return REFUSED;
			}
		}
		this.tokens = left;
		this.lastNanos = nowNanos;
		this.lastEventNanos = Nanos.add(nowNanos, waitNanos);
		return waitNanos;
	}

	/**
	 * Gives back what a reservation took, as far as later reservations allow. Caller
	 * holds the lock.
	 */
	private void giveBack(int n, long timeToActNanos, long nowNanos) {
		if (n == 0 || timeToActNanos < nowNanos) {
			// Nothing taken, or its time has passed: the tokens count as used.
			return;
		}
		// Reservations made after this one were granted against its tokens, as
		// lastEvent - timeToAct worth of refill; those stay taken.
		double restore = n - tokensAccruedIn(Math.max(0, Nanos.add(this.lastEventNanos, -timeToActNanos)));
		if (restore <= 0) {
			return;
		}
		this.tokens = Math.min(this.burst, tokensAt(nowNanos) + restore);
		this.lastNanos = nowNanos;
		if (timeToActNanos == this.lastEventNanos) {
			// It was the latest reservation: the latest event moves back to where it was.
			long previousEventNanos = Nanos.add(timeToActNanos, -nanosToAccrue(n));
			if (previousEventNanos >= nowNanos) {
				this.lastEventNanos = previousEventNanos;
			}
		}
	}

	/** Tokens at {@code nowNanos}: the last count plus the refill since, capped. */
	private double tokensAt(long nowNanos) {
		long elapsedNanos = nowNanos - this.lastNanos;
		if (elapsedNanos <= 0) {
			return this.tokens;
		}
		return Math.min(this.burst, this.tokens + tokensAccruedIn(elapsedNanos));
	}

	private double tokensAccruedIn(long nanos) {
		if (nanos < NANOS_PER_SECOND) {
			// The common case, exact in a double; spares the two long divisions below.
			return nanos * this.ratePerSecond / NANOS_PER_SECOND;
		}
		// Whole seconds and the rest apart, so that long spans keep nanosecond precision.
		return (nanos / NANOS_PER_SECOND) * this.ratePerSecond
				+ (nanos % NANOS_PER_SECOND) * this.ratePerSecond / NANOS_PER_SECOND;
	}

	/**
	 * Nanoseconds for {@code tokens} to accrue, rounded up; saturates at
	 * {@link Long#MAX_VALUE} (the double-to-long cast does), which a rate of 0 reaches.
	 */
	private long nanosToAccrue(double tokens) {
		return (long) Math.ceil(tokens * NANOS_PER_SECOND / this.ratePerSecond);
	}

	@Override
	public String toString() {
		return "TokenBucket[ratePerSecond=" + this.ratePerSecond + ", burst=" + this.burst + "]";
	}

	/**
	 * Tokens taken from a {@link TokenBucket}, and when they may be used. Obtained from
	 * {@link TokenBucket#reserveN}; thread-safe.
	 */
	public interface Reservation {

		/**
		 * Returns whether the bucket granted the tokens. A reservation that is not ok
		 * took nothing.
		 * @return whether the tokens were granted
		 */
		boolean ok();

		/**
		 * Returns how long from now the holder must wait before acting, read from the
		 * bucket's clock at each call: zero once the time has come, never negative;
		 * {@code ChronoUnit.FOREVER.getDuration()} if the reservation is not ok.
		 * @return the remaining wait
		 */
		Duration delay();

		/**
		 * Tells the bucket that the holder will not act, giving the tokens back unless
		 * the time to act has already passed, less the tokens reserved after this
		 * reservation. Idempotent; does nothing for a reservation that is not ok.
		 */
		void cancel();

	}

	/**
	 * The reservations that carry no state: refused ones, and those of an unlimited
	 * bucket.
	 */
	private enum FixedReservation implements Reservation {

		REFUSED, IMMEDIATE;

		@Override
		public boolean ok() {
			return this == IMMEDIATE;
		}

		@Override
		public Duration delay() {
			return (this == IMMEDIATE) ? Duration.ZERO : FOREVER;
		}

		@Override
		public void cancel() {
		}

	}

	/** A granted reservation of a limited bucket. */
	private final class TokenReservation implements Reservation {

		private final int tokens;

		private final long timeToActNanos;

		/** Guarded by the bucket's lock. */
		private boolean cancelled;

		TokenReservation(int tokens, long timeToActNanos) {
			this.tokens = tokens;
			this.timeToActNanos = timeToActNanos;
		}

		@Override
		public boolean ok() {
			return true;
		}

		@Override
		public Duration delay() {
			long nowNanos = TokenBucket.this.clock.nanoTime();
			if (nowNanos >= this.timeToActNanos) {
				return Duration.ZERO;
			}
			long remainingNanos = this.timeToActNanos - nowNanos;
			// The true difference is positive; a negative result means it wrapped.
			return Duration.ofNanos((remainingNanos > 0) ? remainingNanos : Long.MAX_VALUE);
		}

		@Override
		public void cancel() {
			synchronized (TokenBucket.this.lock) {
				if (this.cancelled) {
					return;
				}
				this.cancelled = true;
				giveBack(this.tokens, this.timeToActNanos, TokenBucket.this.clock.nanoTime());
			}
		}

		@Override
		public String toString() {
			return "Reservation[tokens=" + this.tokens + ", delay=" + delay() + "]";
		}

	}

}
