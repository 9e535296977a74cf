package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

class ItemFastSlowRateLimiterTests {

	private static final Duration FAST = Duration.ofMillis(5);

	private static final Duration SLOW = Duration.ofSeconds(10);

	static Stream<Arguments> sequences() {
		return Stream.of(Arguments.of(3, List.of(FAST, FAST, FAST, SLOW, SLOW)),
				Arguments.of(1, List.of(FAST, SLOW, SLOW)), Arguments.of(0, List.of(SLOW, SLOW)));
	}

	@ParameterizedTest(name = "maxFastAttempts={0}")
	@MethodSource("sequences")
	void fastForTheFirstAttemptsThenSlow(int maxFastAttempts, List<Duration> expected) {
		ItemFastSlowRateLimiter<String> limiter = new ItemFastSlowRateLimiter<>(FAST, SLOW, maxFastAttempts);
		List<Duration> delays = new ArrayList<>();
		for (int i = 0; i < expected.size(); i++) {
			delays.add(limiter.when("one"));
		}
		assertThat(delays).containsExactlyElementsOf(expected);
		assertThat(limiter.numRequeues("one")).isEqualTo(expected.size());
	}

	@Test
	void itemsCountIndependentlyAndForgetStartsOver() {
		ItemFastSlowRateLimiter<String> limiter = new ItemFastSlowRateLimiter<>(FAST, SLOW, 3);
		for (int i = 0; i < 5; i++) {
			limiter.when("one");
		}
		assertThat(limiter.when("two")).isEqualTo(FAST);
		assertThat(limiter.when("two")).isEqualTo(FAST);
		assertThat(limiter.numRequeues("two")).isEqualTo(2);
		limiter.forget("one");
		assertThat(limiter.numRequeues("one")).isZero();
		assertThat(limiter.when("one")).isEqualTo(FAST);
	}

	@Test
	void numRequeuesOfAnUnknownItemCreatesNoStateAndForgetRemovesIt() {
		ItemFastSlowRateLimiter<String> limiter = new ItemFastSlowRateLimiter<>(FAST, SLOW, 3);
		assertThat(limiter.numRequeues("never-failed")).isZero();
		assertThat(limiter.trackedItems()).isZero();
		limiter.when("a");
		assertThat(limiter.trackedItems()).isOne();
		limiter.forget("a");
		assertThat(limiter.trackedItems()).isZero();
	}

}
