package dev.workqueue.ratelimit;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.DoubleSummaryStatistics;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class JitterTests {

	@Property
	void aDelayIsCutByAtMostTheFraction(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long nanos,
			@ForAll @DoubleRange(min = 0, max = 1) double fraction,
			@ForAll @DoubleRange(min = 0, max = 1) double draw) {
		assertCutByAtMostTheFraction(nanos, fraction, draw);
	}

	@Test
	void aLongDelayCutByATinyFractionKeepsItsBound() {
		// Found by the property above: a bound computed in doubles rounded above the true
		// one.
		assertCutByAtMostTheFraction(6584923405023447678L, 0.0004900225284341545, 1);
	}

	private static void assertCutByAtMostTheFraction(long nanos, double fraction, double draw) {
		Duration delay = Duration.ofNanos(nanos);
		Duration jittered = Jitter.of(fraction, () -> draw).apply(delay);
		assertThat(jittered).isLessThanOrEqualTo(delay);
		// The bound in exact arithmetic (in doubles it rounds up to a few units of the
		// last
		// place, and failed). Jitter rounds three times (the delay, the cut, their
		// product),
		// each by at most one part in 2^53, so it may cut nanos * 2^-51 too much, plus
		// one.
		BigDecimal exactLowest = BigDecimal.valueOf(nanos).multiply(BigDecimal.ONE.subtract(new BigDecimal(fraction)));
		BigDecimal slack = new BigDecimal(nanos * 0x1p-51).add(BigDecimal.ONE);
		assertThat(new BigDecimal(jittered.toNanos())).isGreaterThanOrEqualTo(exactLowest.subtract(slack));
	}

	@Test
	void theDrawsBoundsGiveTheIntervalsEnds() {
		Duration second = Duration.ofSeconds(1);
		assertThat(Jitter.of(0.25, () -> 0).apply(second)).isEqualTo(second);
		assertThat(Jitter.of(0.25, () -> 1).apply(second)).isEqualTo(Duration.ofMillis(750));
		assertThat(Jitter.of(1, () -> 1).apply(second)).isZero();
		assertThat(Jitter.of(0.5, () -> 0.5).apply(Duration.ofMillis(8))).isEqualTo(Duration.ofMillis(6));
	}

	@Test
	void delaysBeyondTheNanosecondRangeAreCutInSeconds() {
		Duration forever = ChronoUnit.FOREVER.getDuration();
		Duration jittered = Jitter.of(0.5, () -> 1).apply(forever);
		Duration half = forever.dividedBy(2);
		assertThat(jittered).isBetween(half.minusSeconds(1), half.plusSeconds(1));
	}

	@Test
	void noJitterKeepsEveryDelay() {
		assertThat(Jitter.of(0)).isSameAs(Jitter.NONE);
		assertThat(Jitter.NONE.apply(Duration.ofMillis(5))).isEqualTo(Duration.ofMillis(5));
		assertThat(Jitter.of(1).apply(Duration.ZERO)).isZero();
	}

	@Test
	void drawsSpreadUniformlyOverTheInterval() {
		Jitter jitter = Jitter.of(0.5);
		DoubleSummaryStatistics millis = new DoubleSummaryStatistics();
		for (int i = 0; i < 10_000; i++) {
			millis.accept(jitter.apply(Duration.ofSeconds(1)).toNanos() / 1e6);
		}
		assertThat(millis.getMin()).isBetween(500.0, 510.0);
		assertThat(millis.getMax()).isBetween(990.0, 1000.0);
		// Uniform on [500, 1000]: mean 750, standard error of the mean 1.4 ms.
		assertThat(millis.getAverage()).isBetween(740.0, 760.0);
	}

	@Test
	void aFractionOutsideZeroToOneIsRefused() {
		for (double fraction : new double[] { -0.01, 1.01, Double.NaN, Double.POSITIVE_INFINITY }) {
			assertThatIllegalArgumentException().isThrownBy(() -> Jitter.of(fraction))
				.withMessageStartingWith("jitter must be between 0 and 1");
		}
	}

	@Test
	void theExponentialLimiterDrawsEachDelayBelowItsExactOne() {
		ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(
				Duration.ofMillis(10), Duration.ofSeconds(1), Jitter.of(0.5, () -> 1));
		assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
		assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(10));
		assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(20));
		assertThat(limiter.numRequeues("a")).isEqualTo(3);
		assertThat(limiter)
			.hasToString("ItemExponentialFailureRateLimiter[baseDelay=PT0.01S, maxDelay=PT1S, jitter=0.5]");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ItemExponentialFailureRateLimiter<>(Duration.ZERO, Duration.ZERO, 2))
			.withMessageContaining("jitter");
	}

}
