package dev.workqueue;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.stream.Stream;

import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * {@link WorkQueues.Builder}: defaults, validation at the edge, and independent queues
 * from one builder.
 */
class WorkQueuesBuilderTests {

	@Test
	void defaultsAreUnnamedSystemClockNoMetricsAndATenSecondHeartbeat() throws Exception {
		try (DelayingQueue<String> queue = WorkQueues.<String>builder().buildDelayingQueue()) {
			assertThat(queue.name()).isEmpty();
			assertThat(QueueKind.engine(queue).heartbeatNanos()).isEqualTo(Duration.ofSeconds(10).toNanos());
			queue.addAfter("a", Duration.ofMillis(1));
			assertThat(queue.poll(Duration.ofSeconds(1))).as("real time passes").isEqualTo("a");
			assertThat(queue.stats().headQueuedNanos()).isZero();
		}
	}

	@Test
	void eachBuildCreatesAnIndependentQueueFromTheCurrentOptions() {
		WorkQueues.Builder<String> builder = WorkQueues.<String>builder().name("first");
		WorkQueue<String> first = builder.buildQueue();
		WorkQueue<String> second = builder.name("second").buildQueue();
		try (first; second) {
			assertThat(first).isNotSameAs(second);
			assertThat(first.name()).isEqualTo("first");
			assertThat(second.name()).isEqualTo("second");
			first.add("a");
			second.shutDown();
			assertThat(first.size()).isOne();
			assertThat(second.size()).isZero();
			assertThat(first.isShuttingDown()).isFalse();
		}
	}

	@Test
	void eachKindIsBuilt() {
		WorkQueues.Builder<String> builder = WorkQueues.<String>builder();
		try (WorkQueue<String> plain = builder.buildQueue();
				DelayingQueue<String> delaying = builder.buildDelayingQueue();
				RateLimitingQueue<String> rateLimiting = builder
					.buildRateLimitingQueue(new FixedDelayRateLimiter<>(Duration.ZERO))) {
			assertThat(plain).isNotInstanceOf(DelayingQueue.class);
			assertThat(delaying).isNotInstanceOf(RateLimitingQueue.class);
			assertThat(rateLimiting).isInstanceOf(RateLimitingQueue.class);
		}
	}

	@Test
	void clockMeasuresTimeouts() throws Exception {
		FakeClock clock = new FakeClock();
		try (WorkQueue<String> queue = WorkQueues.<String>builder().clock(clock).buildQueue();
				BlockingCall<String> poll = BlockingCall.start(() -> queue.poll(Duration.ofHours(1)))) {
			Await.until(clock::hasWaiters);
			clock.step(Duration.ofHours(1));
			assertThat(poll.result()).isNull();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void heartbeatIsTheLeadersLongestSleepOnEveryQueue(QueueKind kind) {
		try (WorkQueue<String> queue = kind.build(WorkQueues.<String>builder().heartbeat(Duration.ofMillis(250)))) {
			assertThat(QueueKind.engine(queue).heartbeatNanos()).isEqualTo(250_000_000L);
		}
	}

	static Stream<Arguments> nullOptions() {
		return Stream.of(nullCase("name", (builder) -> builder.name(null)),
				nullCase("clock", (builder) -> builder.clock(null)),
				nullCase("metrics", (builder) -> builder.metrics(null)),
				nullCase("heartbeat", (builder) -> builder.heartbeat(null)),
				nullCase("limiter", (builder) -> builder.buildRateLimitingQueue(null)));
	}

	private static Arguments nullCase(String parameter, Consumer<WorkQueues.Builder<String>> call) {
		return Arguments.of(parameter, Named.of(parameter + "(null)", call));
	}

	@ParameterizedTest(name = "{1}")
	@MethodSource
	void nullOptions(String parameter, Consumer<WorkQueues.Builder<String>> call) {
		assertThatNullPointerException().isThrownBy(() -> call.accept(WorkQueues.builder())).withMessage(parameter);
	}

	static Stream<Duration> badHeartbeats() {
		return Stream.of(Duration.ZERO, Duration.ofNanos(-1), Duration.ofSeconds(-10), Duration.ofNanos(1),
				Duration.ofNanos(999_999));
	}

	@ParameterizedTest
	@MethodSource
	void badHeartbeats(Duration heartbeat) {
		WorkQueues.Builder<String> builder = WorkQueues.builder();
		assertThatIllegalArgumentException().isThrownBy(() -> builder.heartbeat(heartbeat))
			.withMessageContaining("heartbeat");
	}

	@Test
	void heartbeatTooLargeForNanosecondsIsClamped() throws Exception {
		try (DelayingQueue<String> queue = WorkQueues.<String>builder()
			.heartbeat(Duration.ofSeconds(Long.MAX_VALUE))
			.clock(Clock.system())
			.buildDelayingQueue()) {
			assertThat(QueueKind.engine(queue).heartbeatNanos()).isEqualTo(Long.MAX_VALUE);
			queue.addAfter("a", Duration.ofMillis(1));
			assertThat(queue.poll(Duration.ofSeconds(1))).isEqualTo("a");
		}
	}

}
