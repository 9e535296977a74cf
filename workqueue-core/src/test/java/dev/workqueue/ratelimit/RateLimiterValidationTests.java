package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.stream.Stream;

import dev.workqueue.time.FakeClock;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RateLimiterValidationTests {

	private static final Duration MS = Duration.ofMillis(1);

	private static final Duration NEGATIVE = Duration.ofNanos(-1);

	private static final FakeClock CLOCK = new FakeClock();

	private static final RateLimiter<String> SOME_LIMITER = new ItemExponentialFailureRateLimiter<>(MS, MS);

	static Stream<Arguments> badArguments() {
		return Stream.of(
				bad("negative baseDelay", () -> new ItemExponentialFailureRateLimiter<>(NEGATIVE, MS), "baseDelay"),
				bad("negative maxDelay", () -> new ItemExponentialFailureRateLimiter<>(Duration.ZERO, NEGATIVE),
						"maxDelay"),
				bad("maxDelay below baseDelay",
						() -> new ItemExponentialFailureRateLimiter<>(Duration.ofSeconds(2), Duration.ofSeconds(1)),
						"maxDelay must not be less than baseDelay"),
				npe("null baseDelay", () -> new ItemExponentialFailureRateLimiter<>(null, MS), "baseDelay"),
				npe("null maxDelay", () -> new ItemExponentialFailureRateLimiter<>(MS, null), "maxDelay"),
				bad("negative fastDelay", () -> new ItemFastSlowRateLimiter<>(NEGATIVE, MS, 1), "fastDelay"),
				bad("negative slowDelay", () -> new ItemFastSlowRateLimiter<>(MS, NEGATIVE, 1), "slowDelay"),
				bad("negative maxFastAttempts", () -> new ItemFastSlowRateLimiter<>(MS, MS, -1), "maxFastAttempts"),
				npe("null fastDelay", () -> new ItemFastSlowRateLimiter<>(null, MS, 1), "fastDelay"),
				bad("negative qps", () -> new BucketRateLimiter<>(-1, 1), "qps"),
				bad("NaN qps", () -> new BucketRateLimiter<>(Double.NaN, 1), "qps"),
				bad("negative infinite qps", () -> new BucketRateLimiter<>(Double.NEGATIVE_INFINITY, 1), "qps"),
				bad("negative burst", () -> new BucketRateLimiter<>(1, -1), "burst"),
				npe("null bucket clock", () -> new BucketRateLimiter<>(1, 1, null), "clock"),
				bad("negative item qps", () -> new ItemBucketRateLimiter<>(-0.5, 1), "qps"),
				bad("NaN item qps", () -> new ItemBucketRateLimiter<>(Double.NaN, 1), "qps"),
				bad("negative item burst", () -> new ItemBucketRateLimiter<>(1, -1), "burst"),
				npe("null item bucket clock", () -> new ItemBucketRateLimiter<>(1, 1, null), "clock"),
				bad("no limiters", () -> new MaxOfRateLimiter<String>(), "limiters"),
				npe("null limiter array", () -> new MaxOfRateLimiter<String>((RateLimiter<String>[]) null), "limiters"),
				npe("null limiter", () -> new MaxOfRateLimiter<>(SOME_LIMITER, null), "limiters[1]"),
				bad("negative maxWait", () -> new WithMaxWaitRateLimiter<>(SOME_LIMITER, NEGATIVE), "maxWait"),
				npe("null maxWait", () -> new WithMaxWaitRateLimiter<>(SOME_LIMITER, null), "maxWait"),
				npe("null wrapped limiter", () -> new WithMaxWaitRateLimiter<String>(null, MS), "limiter"),
				bad("negative ratePerSecond", () -> new TokenBucket(-1, 1), "ratePerSecond"),
				bad("NaN ratePerSecond", () -> new TokenBucket(Double.NaN, 1), "ratePerSecond"),
				bad("negative bucket burst", () -> new TokenBucket(1, -1), "burst"),
				npe("null token bucket clock", () -> new TokenBucket(1, 1, null), "clock"),
				bad("reserveN of negative n", () -> new TokenBucket(1, 1, CLOCK).reserveN(-1), "n"),
				bad("allowN of negative n", () -> new TokenBucket(1, 1, CLOCK).allowN(-1), "n"),
				bad("tryAcquire of negative n", () -> new TokenBucket(1, 1, CLOCK).tryAcquire(-1, MS), "n"),
				bad("negative n at an infinite rate",
						() -> new TokenBucket(Double.POSITIVE_INFINITY, 1, CLOCK).reserveN(-1), "n"),
				npe("tryAcquire with null timeout", () -> new TokenBucket(1, 1, CLOCK).tryAcquire(1, null), "timeout"),
				npe("exponential when(null)", () -> new ItemExponentialFailureRateLimiter<>(MS, MS).when(null), "item"),
				npe("fast-slow numRequeues(null)", () -> new ItemFastSlowRateLimiter<>(MS, MS, 1).numRequeues(null),
						"item"),
				npe("bucket when(null)", () -> new BucketRateLimiter<>(1, 1, CLOCK).when(null), "item"),
				npe("item bucket forget(null)", () -> new ItemBucketRateLimiter<>(1, 1, CLOCK).forget(null), "item"),
				npe("max-of when(null)", () -> new MaxOfRateLimiter<>(SOME_LIMITER).when(null), "item"),
				npe("with-max-wait when(null)", () -> new WithMaxWaitRateLimiter<>(SOME_LIMITER, MS).when(null),
						"item"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badArguments")
	void badArgumentsAreRejectedNamingTheArgument(String name, ThrowingCallable call,
			Class<? extends RuntimeException> expected, String message) {
		assertThatThrownBy(call).isExactlyInstanceOf(expected).hasMessageContaining(message);
	}

	static Stream<Arguments> edgeArguments() {
		return Stream
			.of(Arguments.of("zero delays",
					(ThrowingCallable) () -> new ItemExponentialFailureRateLimiter<>(Duration.ZERO, Duration.ZERO)),
					Arguments.of("zero fast attempts",
							(ThrowingCallable) () -> new ItemFastSlowRateLimiter<>(MS, Duration.ZERO, 0)),
					Arguments.of("zero qps and burst", (ThrowingCallable) () -> new BucketRateLimiter<>(0, 0)),
					Arguments.of("infinite qps",
							(ThrowingCallable) () -> new ItemBucketRateLimiter<>(Double.POSITIVE_INFINITY, 0)),
					Arguments.of("zero maxWait",
							(ThrowingCallable) () -> new WithMaxWaitRateLimiter<>(SOME_LIMITER, Duration.ZERO)),
					Arguments.of("huge delays",
							(ThrowingCallable) () -> new ItemExponentialFailureRateLimiter<>(
									Duration.ofSeconds(Long.MAX_VALUE),
									Duration.ofSeconds(Long.MAX_VALUE, 999_999_999))));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("edgeArguments")
	void edgeArgumentsAreLegal(String name, ThrowingCallable call) {
		assertThatCode(call).doesNotThrowAnyException();
	}

	private static Arguments bad(String name, ThrowingCallable call, String message) {
		return Arguments.of(name, call, IllegalArgumentException.class, message);
	}

	private static Arguments npe(String name, ThrowingCallable call, String message) {
		return Arguments.of(name, call, NullPointerException.class, message);
	}

}
