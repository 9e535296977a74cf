package dev.workqueue.time;

import java.time.Duration;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Nanos}: conversions and sums clamp to the range of a {@code long}.
 */
class NanosTests {

	static Stream<Arguments> durations() {
		return Stream.of(Arguments.of(Duration.ZERO, 0L), Arguments.of(Duration.ofMillis(1500), 1_500_000_000L),
				Arguments.of(Duration.ofNanos(-7), -7L), Arguments.of(Duration.ofNanos(Long.MAX_VALUE), Long.MAX_VALUE),
				Arguments.of(Duration.ofNanos(Long.MAX_VALUE).plusNanos(1), Long.MAX_VALUE),
				Arguments.of(Duration.ofSeconds(Long.MAX_VALUE), Long.MAX_VALUE),
				Arguments.of(Duration.ofNanos(Long.MIN_VALUE), Long.MIN_VALUE),
				Arguments.of(Duration.ofNanos(Long.MIN_VALUE).minusNanos(1), Long.MIN_VALUE),
				Arguments.of(Duration.ofSeconds(Long.MIN_VALUE), Long.MIN_VALUE));
	}

	@ParameterizedTest
	@MethodSource
	void durations(Duration duration, long expectedNanos) {
		assertThat(Nanos.of(duration)).isEqualTo(expectedNanos);
	}

	static Stream<Arguments> sums() {
		return Stream.of(Arguments.of(1L, 2L, 3L), Arguments.of(-5L, 3L, -2L),
				Arguments.of(Long.MAX_VALUE, 0L, Long.MAX_VALUE), Arguments.of(Long.MAX_VALUE, 1L, Long.MAX_VALUE),
				Arguments.of(Long.MAX_VALUE - 10, Long.MAX_VALUE, Long.MAX_VALUE),
				Arguments.of(Long.MIN_VALUE, -1L, Long.MIN_VALUE),
				Arguments.of(Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE),
				Arguments.of(Long.MAX_VALUE, Long.MIN_VALUE, -1L), Arguments.of(Long.MIN_VALUE, Long.MAX_VALUE, -1L),
				Arguments.of(1_000L, Long.MAX_VALUE - 999, Long.MAX_VALUE));
	}

	@ParameterizedTest
	@MethodSource
	void sums(long a, long b, long expected) {
		assertThat(Nanos.add(a, b)).isEqualTo(expected);
		assertThat(Nanos.add(b, a)).isEqualTo(expected);
	}

}
