package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.workqueue.ratelimit.TokenBucket.Reservation;
import dev.workqueue.time.FakeClock;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs random sequences of steps, reservations, allows and cancels against a
 * {@link TokenBucket} and against a model in whole tokens and whole refill periods, where
 * nothing is rounded. Rates divide one second into whole nanoseconds, so the bucket's
 * answers must match the model's exactly.
 */
class TokenBucketModelTests {

	@Property(tries = 400)
	void bucketAgreesWithTheModel(@ForAll("rates") int ratePerSecond, @ForAll @IntRange(max = 4) int burst,
			@ForAll("operations") List<Operation> operations) {
		long periodNanos = (ratePerSecond > 0) ? 1_000_000_000L / ratePerSecond : 1_000_000_000L;
		FakeClock clock = new FakeClock();
		TokenBucket bucket = new TokenBucket(ratePerSecond, burst, clock);
		Model model = new Model(burst, ratePerSecond > 0);
		List<Reservation> reservations = new ArrayList<>();
		List<Model.Reservation> expectedReservations = new ArrayList<>();
		for (Operation operation : operations) {
			int amount = operation.amount();
			switch (operation.kind()) {
				case STEP -> {
					clock.step(Duration.ofNanos(amount * periodNanos));
					model.step(amount);
				}
				case RESERVE -> {
					Reservation reservation = bucket.reserveN(amount);
					Model.Reservation expected = model.reserve(amount);
					assertThat(reservation.ok()).as("ok of %s", operation).isEqualTo(expected != null);
					reservations.add(reservation);
					expectedReservations.add(expected);
				}
				case ALLOW -> assertThat(bucket.allowN(amount)).as("%s", operation).isEqualTo(model.allow(amount));
				case CANCEL -> {
					if (!reservations.isEmpty()) {
						int index = amount % reservations.size();
						reservations.get(index).cancel();
						model.cancel(expectedReservations.get(index));
					}
				}
			}
			for (int i = 0; i < reservations.size(); i++) {
				Model.Reservation expected = expectedReservations.get(i);
				if (expected != null) {
					assertThat(reservations.get(i).delay()).as("delay of reservation %d after %s", i, operation)
						.isEqualTo(Duration.ofNanos(model.periodsUntil(expected) * periodNanos));
				}
			}
		}
	}

	@Provide
	Arbitrary<Integer> rates() {
		return Arbitraries.of(0, 1, 2, 4, 5, 10, 1000);
	}

	@Provide
	Arbitrary<List<Operation>> operations() {
		Arbitrary<Operation> operation = Combinators
			.combine(Arbitraries.of(Kind.class), Arbitraries.integers().between(0, 6))
			.as(Operation::new);
		return operation.list().ofMaxSize(40);
	}

	enum Kind {

		STEP, RESERVE, ALLOW, CANCEL

	}

	record Operation(Kind kind, int amount) {
	}

	/**
	 * x/time/rate's bucket in whole tokens, counting time in refill periods (one token
	 * each), or with no refill at all for a rate of 0.
	 */
	static final class Model {

		private final int burst;

		private final boolean refills;

		private long nowPeriods;

		private long tokens;

		private long lastPeriods;

		private long lastEventPeriods;

		Model(int burst, boolean refills) {
			this.burst = burst;
			this.refills = refills;
			this.tokens = burst;
		}

		void step(int periods) {
			this.nowPeriods += periods;
		}

		Reservation reserve(int n) {
			return take(n, Long.MAX_VALUE);
		}

		boolean allow(int n) {
			return take(n, 0) != null;
		}

		long periodsUntil(Reservation reservation) {
			return Math.max(0, reservation.timeToAct - this.nowPeriods);
		}

		void cancel(Reservation reservation) {
			if (reservation == null || reservation.cancelled) {
				return;
			}
			reservation.cancelled = true;
			if (reservation.tokens == 0 || reservation.timeToAct < this.nowPeriods) {
				return;
			}
			long reservedAfter = this.refills ? Math.max(0, this.lastEventPeriods - reservation.timeToAct) : 0;
			long restore = reservation.tokens - reservedAfter;
			if (restore <= 0) {
				return;
			}
			this.tokens = Math.min(this.burst, tokensNow() + restore);
			this.lastPeriods = this.nowPeriods;
			if (this.refills && reservation.timeToAct == this.lastEventPeriods) {
				long previousEvent = reservation.timeToAct - reservation.tokens;
				if (previousEvent >= this.nowPeriods) {
					this.lastEventPeriods = previousEvent;
				}
			}
		}

		private Reservation take(int n, long maxWaitPeriods) {
			if (n > this.burst) {
				return null;
			}
			long left = tokensNow() - n;
			long wait = Math.max(0, -left);
			if ((wait > 0 && !this.refills) || wait > maxWaitPeriods) {
				return null;
			}
			this.tokens = left;
			this.lastPeriods = this.nowPeriods;
			this.lastEventPeriods = this.nowPeriods + wait;
			return new Reservation(n, this.lastEventPeriods);
		}

		private long tokensNow() {
			long refilled = this.refills ? this.nowPeriods - this.lastPeriods : 0;
			return Math.min(this.burst, this.tokens + refilled);
		}

		static final class Reservation {

			final int tokens;

			final long timeToAct;

			boolean cancelled;

			Reservation(int tokens, long timeToAct) {
				this.tokens = tokens;
				this.timeToAct = timeToAct;
			}

		}

	}

}
