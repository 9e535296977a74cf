package dev.workqueue.spring.actuate.endpoint;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Tests for {@link ControlRequest}: the runtime-control body read strictly.
 */
class ControlRequestTests {

	@Test
	void readsTheTwoFieldsFromTheirText() {
		assertThat(ControlRequest.parse("true", "4")).isEqualTo(new ControlRequest(true, 4));
		assertThat(ControlRequest.parse("false", null)).isEqualTo(new ControlRequest(false, null));
		assertThat(ControlRequest.parse(null, "-2147483648")).isEqualTo(new ControlRequest(null, Integer.MIN_VALUE));
		assertThat(ControlRequest.parse(null, null)).isEqualTo(new ControlRequest(null, null));
	}

	@ParameterizedTest(name = "paused={0}, concurrency={1}")
	@MethodSource("wrongTypes")
	void refusesAValueOfTheWrongTypeNamingTheField(String paused, String concurrency, String field, String message) {
		InvalidControlRequestException ex = catchThrowableOfType(InvalidControlRequestException.class,
				() -> ControlRequest.parse(paused, concurrency));
		assertThat(ex.getField()).isEqualTo(field);
		assertThat(ex.getReason()).isEqualTo(message);
	}

	static Stream<Arguments> wrongTypes() {
		String whole = "concurrency must be a whole number from 1 to 1024, was ";
		return Stream.of(Arguments.of("yes", null, "paused", "paused must be true or false, was 'yes'"),
				Arguments.of("1", null, "paused", "paused must be true or false, was '1'"),
				Arguments.of("TRUE", null, "paused", "paused must be true or false, was 'TRUE'"),
				Arguments.of(null, "1.5", "concurrency", whole + "'1.5'"),
				Arguments.of(null, "abc", "concurrency", whole + "'abc'"),
				Arguments.of(null, "2147483648", "concurrency", whole + "'2147483648'"),
				Arguments.of(null, " 4", "concurrency", whole + "' 4'"));
	}

	@Test
	void quotesALongValueCutShort() {
		InvalidControlRequestException ex = catchThrowableOfType(InvalidControlRequestException.class,
				() -> ControlRequest.parse("x".repeat(100), null));
		assertThat(ex.getReason()).isEqualTo("paused must be true or false, was '" + "x".repeat(40) + "...'");
	}

}
