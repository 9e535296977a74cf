package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.RateLimiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The shared part of the stores' limiter builders, over in-memory counts: the kinds of
 * counts each limiter asks the store for (part of stored keys and rows, never to change),
 * the limiters' delays, and the history's time to live.
 */
class SharedLimiterFactoryTests {

	private final RecordingFactory factory = new RecordingFactory();

	@Test
	void eachLimiterAsksTheStoreForItsKindOfCounts() {
		this.factory.exponential(Duration.ofMillis(5), Duration.ofSeconds(1));
		this.factory.fastSlow(Duration.ofMillis(1), Duration.ofSeconds(1), 2);
		this.factory.attempts();

		assertThat(this.factory.kinds).containsExactly("failures:exponential", "failures:fast-slow",
				"failures:attempts");
	}

	@Test
	void theLimitersDelayOnTheStoresCounts() {
		RateLimiter<String> exponential = this.factory.exponential(Duration.ofMillis(5), Duration.ofSeconds(1));
		RateLimiter<String> fastSlow = this.factory.fastSlow(Duration.ofMillis(1), Duration.ofSeconds(1), 1);

		assertThat(exponential.when("a")).isEqualTo(Duration.ofMillis(5));
		assertThat(exponential.when("a")).isEqualTo(Duration.ofMillis(10));
		assertThat(fastSlow.when("a")).isEqualTo(Duration.ofMillis(1));
		assertThat(fastSlow.when("a")).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void anUnlimitedBucketDelaysNothingAndNeedsNoStore() {
		RateLimiter<String> bucket = this.factory.bucket(Double.POSITIVE_INFINITY, 1);
		RateLimiter<String> itemBucket = this.factory.itemBucket(Double.POSITIVE_INFINITY, 1);
		for (int i = 0; i < 1_000; i++) {
			assertThat(bucket.when("a")).isZero();
			assertThat(itemBucket.when("a")).isZero();
		}
		assertThat(itemBucket.numRequeues("a")).isZero();
		assertThatIllegalArgumentException().isThrownBy(() -> this.factory.bucket(Double.POSITIVE_INFINITY, 0))
			.withMessage("burst must be at least 1, was 0");
		assertThatExceptionOfType(UnsupportedOperationException.class).as("a finite rate is the store's")
			.isThrownBy(() -> this.factory.bucket(10, 1));
	}

	@Test
	void theHistorysTimeToLiveIsFromOneSecondToOneHundredYears() {
		assertThat(SharedLimiterFactory.checkedHistoryTtl(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
		assertThat(SharedLimiterFactory.checkedHistoryTtl(Duration.ofDays(36_525))).isEqualTo(Duration.ofDays(36_525));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> SharedLimiterFactory.checkedHistoryTtl(Duration.ofMillis(999)))
			.withMessage("historyTtl must be from 1s to PT876600H, was PT0.999S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> SharedLimiterFactory.checkedHistoryTtl(Duration.ofDays(36_526)))
			.withMessageStartingWith("historyTtl must be from 1s to");
		assertThatNullPointerException().isThrownBy(() -> SharedLimiterFactory.checkedHistoryTtl(null))
			.withMessage("historyTtl");
		assertThat(SharedLimiterFactory.DEFAULT_HISTORY_TTL).isEqualTo(Duration.ofDays(1));
	}

	/** A store whose counts are in memory, recording the kinds asked for. */
	private static final class RecordingFactory extends SharedLimiterFactory<String> {

		private final List<String> kinds = new ArrayList<>();

		@Override
		protected FailureCounts<String> failureCounts(String kind) {
			this.kinds.add(kind);
			return FailureCounts.inMemory();
		}

		@Override
		protected RateLimiter<String> storeBucket(double qps, int burst) {
			throw new UnsupportedOperationException("no buckets here");
		}

		@Override
		protected RateLimiter<String> storeItemBucket(double qps, int burst) {
			throw new UnsupportedOperationException("no buckets here");
		}

	}

}
