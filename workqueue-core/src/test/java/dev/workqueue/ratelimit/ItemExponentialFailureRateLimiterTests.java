package dev.workqueue.ratelimit;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

class ItemExponentialFailureRateLimiterTests {

	static Stream<Arguments> sequences() {
		return Stream.of(
				Arguments.of("1ms to 1s doubles", ms(1), Duration.ofSeconds(1),
						List.of(ms(1), ms(2), ms(4), ms(8), ms(16))),
				Arguments.of("capped at max", ms(1), ms(5), List.of(ms(1), ms(2), ms(4), ms(5), ms(5))),
				Arguments.of("max that is not a doubling", ms(3), ms(10), List.of(ms(3), ms(6), ms(10), ms(10))),
				Arguments.of("base equal to max", ms(5), ms(5), List.of(ms(5), ms(5), ms(5))),
				Arguments.of("zero base stays zero", Duration.ZERO, ms(5),
						List.of(Duration.ZERO, Duration.ZERO, Duration.ZERO)),
				Arguments.of("minutes", Duration.ofMinutes(1), Duration.ofHours(1000),
						List.of(Duration.ofMinutes(1), Duration.ofMinutes(2), Duration.ofMinutes(4))));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("sequences")
	void whenReturnsBaseTimesTwoToTheEarlierFailuresCappedAtMax(String name, Duration base, Duration max,
			List<Duration> expected) {
		ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(base, max);
		List<Duration> delays = new ArrayList<>();
		for (int i = 0; i < expected.size(); i++) {
			delays.add(limiter.when("one"));
		}
		assertThat(delays).containsExactlyElementsOf(expected);
		assertThat(limiter.numRequeues("one")).isEqualTo(expected.size());
	}

	@Test
	void itemsBackOffIndependentlyAndForgetStartsOver() {
		ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(ms(1),
				Duration.ofSeconds(1));
		for (int i = 0; i < 5; i++) {
			limiter.when("one");
		}
		assertThat(limiter.when("two")).isEqualTo(ms(1));
		assertThat(limiter.when("two")).isEqualTo(ms(2));
		assertThat(limiter.numRequeues("one")).isEqualTo(5);
		assertThat(limiter.numRequeues("two")).isEqualTo(2);
		limiter.forget("one");
		assertThat(limiter.numRequeues("one")).isZero();
		assertThat(limiter.when("one")).isEqualTo(ms(1));
		assertThat(limiter.numRequeues("two")).isEqualTo(2);
	}

	static Stream<Arguments> overflows() {
		return Stream.of(Arguments.of(ms(1), Duration.ofSeconds(1000), 1000),
				Arguments.of(Duration.ofMinutes(1), Duration.ofHours(1000), 1000),
				Arguments.of(Duration.ofNanos(1), Duration.ofSeconds(1000), 64),
				Arguments.of(Duration.ofNanos(1), Duration.ofSeconds(1000), 65),
				Arguments.of(ms(5), Duration.ofSeconds(1000), 1_000_000));
	}

	@ParameterizedTest(name = "{0}..{1} after {2} failures")
	@MethodSource("overflows")
	void manyFailuresReturnMaxNeverAWrappedValue(Duration base, Duration max, int failures) {
		ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(base, max);
		for (int i = 0; i < failures; i++) {
			limiter.when("overflow");
		}
		assertThat(limiter.when("overflow")).isEqualTo(max);
		assertThat(limiter.numRequeues("overflow")).isEqualTo(failures + 1);
	}

	@Test
	void delaysBeyondLongNanosecondsAreExact() {
		ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(Duration.ofNanos(1),
				Duration.ofSeconds(Long.MAX_VALUE));
		Duration delay = null;
		for (int i = 0; i <= 70; i++) {
			delay = limiter.when("far");
		}
		BigInteger twoToThe70 = BigInteger.TWO.pow(70);
		BigInteger[] secondsAndNanos = twoToThe70.divideAndRemainder(BigInteger.valueOf(1_000_000_000));
		assertThat(delay)
			.isEqualTo(Duration.ofSeconds(secondsAndNanos[0].longValueExact(), secondsAndNanos[1].longValueExact()));
	}

	@Test
	void numRequeuesOfAnUnknownItemCreatesNoState() {
		ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(ms(1),
				Duration.ofSeconds(1));
		assertThat(limiter.numRequeues("never-failed")).isZero();
		assertThat(limiter.trackedItems()).isZero();
	}

	@Test
	void forgetRemovesTheItemsState() {
		ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(ms(1),
				Duration.ofSeconds(1));
		limiter.when("a");
		limiter.when("b");
		assertThat(limiter.trackedItems()).isEqualTo(2);
		limiter.forget("a");
		limiter.forget("unknown");
		assertThat(limiter.trackedItems()).isOne();
		limiter.forget("b");
		assertThat(limiter.trackedItems()).isZero();
	}

	@Test
	void concurrentFailuresOfOneItemAreAllCounted() throws Exception {
		ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(ms(1),
				Duration.ofSeconds(1));
		int threads = 4;
		int callsPerThread = 10_000;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				futures.add(executor.submit(() -> {
					for (int i = 0; i < callsPerThread; i++) {
						limiter.when("shared");
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get();
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(limiter.numRequeues("shared")).isEqualTo(threads * callsPerThread);
	}

	private static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

}
