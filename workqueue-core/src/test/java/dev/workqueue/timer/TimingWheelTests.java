package dev.workqueue.timer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import dev.workqueue.time.Clock;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * Tests for {@link TimingWheel} on a {@link ParkingClock}. Unless a test is about the
 * executor, {@code execute} runs directly on the wheel's thread, so once the wheel has
 * parked at the current reading every timer due by then has fired: that is how a test
 * checks that something has not fired, without sleeping.
 */
class TimingWheelTests {

	private static final Duration SECOND = Duration.ofSeconds(1);

	private static final long SECOND_NANOS = SECOND.toNanos();

	private final ParkingClock clock = new ParkingClock();

	private final List<Fired> fired = new CopyOnWriteArrayList<>();

	private TimingWheel<String, String> newWheel(int numSlots) {
		return new TimingWheel<>(SECOND, numSlots, this::record, this.clock, Runnable::run);
	}

	private void record(String key, String value) {
		this.fired.add(new Fired(key, value, this.clock.nanoTime()));
	}

	static Stream<Arguments> delays() {
		List<Arguments> cases = new ArrayList<>();
		for (long startNanos : new long[] { 0, 1_500_000_000L, 3 * SECOND_NANOS, 7_250_000_000L }) {
			for (long delayNanos : new long[] { 1, 500_000_000L, SECOND_NANOS, 1_200_000_000L, 3 * SECOND_NANOS,
					4 * SECOND_NANOS, 4_500_000_000L, 5 * SECOND_NANOS, 17 * SECOND_NANOS, 100 * SECOND_NANOS,
					3_600 * SECOND_NANOS }) {
				cases.add(Arguments.of(Duration.ofNanos(startNanos), Duration.ofNanos(delayNanos)));
			}
		}
		return cases.stream();
	}

	@ParameterizedTest(name = "at {0}, delay {1}")
	@MethodSource("delays")
	void timerFiresAtTheFirstTickAtOrAfterItsDelayAndNotBefore(Duration start, Duration delay) {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			this.clock.awaitParked();
			this.clock.step(start);
			this.clock.awaitParked();
			wheel.setTimer("k", "v", delay);
			long dueNanos = start.plus(delay).toNanos();
			long expectedNanos = ceilToSecond(dueNanos);
			assertFiresAt(expectedNanos, "k");
		}
	}

	@Test
	void delayLandingOnTheCurrentSlotDoesNotWaitAnExtraRevolution() {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			this.clock.awaitParked();
			this.clock.step(Duration.ofSeconds(2));
			this.clock.awaitParked();
			// 4 s from slot 2 of 4 is slot 2 again: go-zero waits 8 s here.
			wheel.setTimer("revolution", "v", Duration.ofSeconds(4));
			wheel.setTimer("two revolutions", "v", Duration.ofSeconds(8));
			assertFiresAt(6 * SECOND_NANOS, "revolution");
			assertFiresAt(10 * SECOND_NANOS, "two revolutions");
		}
	}

	@Test
	void moveTimerToLessThanOneIntervalFiresOnce() {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			wheel.setTimer("k", "v", Duration.ofSeconds(3));
			this.clock.step(Duration.ofMillis(1_500));
			this.clock.awaitParked();
			// go-zero runs execute now and leaves the timer to fire a second time.
			wheel.moveTimer("k", Duration.ofMillis(300));
			assertFiresAt(2 * SECOND_NANOS, "k");
			this.clock.step(Duration.ofSeconds(20));
			this.clock.awaitParked();
			assertThat(this.fired).hasSize(1);
			assertThat(wheel.size()).isZero();
		}
	}

	static Stream<Arguments> moves() {
		return Stream.of(Arguments.of("later in the same revolution", 2, 3, 1),
				Arguments.of("earlier in the same revolution", 3, 1, 1), Arguments.of("later by revolutions", 2, 50, 1),
				Arguments.of("earlier by revolutions", 50, 2, 1), Arguments.of("onto the current slot", 3, 4, 2),
				Arguments.of("from the far future to the next tick", 100_000, 1, 7),
				Arguments.of("from the next tick to the far future", 1, 100_000, 0));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("moves")
	void movedTimerFiresAtItsNewTimeOnly(String description, int firstDelaySeconds, int newDelaySeconds,
			int stepBeforeMoveSeconds) {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			wheel.setTimer("k", "v", Duration.ofSeconds(firstDelaySeconds));
			this.clock.step(Duration.ofSeconds(stepBeforeMoveSeconds));
			this.clock.awaitParked();
			wheel.moveTimer("k", Duration.ofSeconds(newDelaySeconds));
			assertFiresAt((long) (stepBeforeMoveSeconds + newDelaySeconds) * SECOND_NANOS, "k");
			this.clock.stepTo((long) (firstDelaySeconds + newDelaySeconds + 10) * SECOND_NANOS);
			this.clock.awaitParked();
			assertThat(this.fired).hasSize(1);
		}
	}

	@Test
	void setTimerReplacesTheValueAndDelayOfAPendingKey() {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			wheel.setTimer("k", "old", Duration.ofSeconds(5));
			wheel.setTimer("k", "new", Duration.ofSeconds(2));
			assertThat(wheel.size()).isOne();
			assertFiresAt(2 * SECOND_NANOS, "k");
			this.clock.step(Duration.ofSeconds(10));
			this.clock.awaitParked();
			assertThat(this.fired).extracting(Fired::value).containsExactly("new");
		}
	}

	@Test
	void removedTimerNeverFiresAndRemovingAnAbsentKeyDoesNothing() {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			wheel.setTimer("removed", "v", Duration.ofSeconds(2));
			wheel.setTimer("kept", "v", Duration.ofSeconds(2));
			wheel.removeTimer("removed");
			wheel.removeTimer("absent");
			assertThat(wheel.size()).isOne();
			this.clock.step(Duration.ofSeconds(10));
			soon().until(() -> this.fired.size() == 1);
			this.clock.awaitParked();
			assertThat(this.fired).extracting(Fired::key).containsExactly("kept");
		}
	}

	@Test
	void moveTimerOfAnAbsentKeyDoesNothing() {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			wheel.moveTimer("absent", Duration.ofSeconds(1));
			assertThat(wheel.size()).isZero();
			this.clock.step(Duration.ofSeconds(10));
			this.clock.awaitParked();
			assertThat(this.fired).isEmpty();
		}
	}

	@Test
	void sizeCountsPendingTimersAndDropsBeforeExecuteRuns() {
		List<Integer> sizesSeenByExecute = new CopyOnWriteArrayList<>();
		TimingWheel<String, String>[] holder = new TimingWheel[1];
		try (TimingWheel<String, String> wheel = new TimingWheel<>(SECOND, 4,
				(key, value) -> sizesSeenByExecute.add(holder[0].size()), this.clock, Runnable::run)) {
			holder[0] = wheel;
			wheel.setTimer("a", "v", Duration.ofSeconds(1));
			wheel.setTimer("b", "v", Duration.ofSeconds(1));
			wheel.setTimer("c", "v", Duration.ofSeconds(5));
			wheel.setTimer("c", "v", Duration.ofSeconds(6));
			assertThat(wheel.size()).isEqualTo(3);
			wheel.removeTimer("c");
			assertThat(wheel.size()).isEqualTo(2);
			wheel.setTimer("c", "v", Duration.ofSeconds(5));
			this.clock.step(SECOND);
			soon().until(() -> sizesSeenByExecute.size() == 2);
			assertThat(sizesSeenByExecute).containsExactly(1, 1);
			assertThat(wheel.size()).isOne();
		}
	}

	static Stream<Duration> nonPositiveDelays() {
		return Stream.of(Duration.ZERO, Duration.ofNanos(-1), Duration.ofSeconds(-5),
				Duration.ofSeconds(Long.MIN_VALUE));
	}

	@ParameterizedTest
	@MethodSource("nonPositiveDelays")
	void nonPositiveDelayFiresWithoutTheClockMoving(Duration delay) {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			this.clock.step(Duration.ofMillis(2_500));
			this.clock.awaitParked();
			wheel.setTimer("k", "v", delay);
			soon().until(() -> this.fired.size() == 1);
			assertThat(this.fired.get(0).atNanos()).isEqualTo(2_500_000_000L);
			wheel.setTimer("moved", "v", Duration.ofSeconds(30));
			wheel.moveTimer("moved", delay);
			soon().until(() -> this.fired.size() == 2);
			assertThat(wheel.size()).isZero();
		}
	}

	@Test
	void hugeDelayIsClampedAndNeverOverflows() {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			wheel.setTimer("k", "v", Duration.ofSeconds(Long.MAX_VALUE));
			this.clock.step(Duration.ofDays(365L * 100));
			this.clock.awaitParked();
			assertThat(this.fired).isEmpty();
			assertThat(wheel.size()).isOne();
		}
	}

	@Test
	void steppedClockCatchesUpAndFiresEverythingDueInDueOrder() {
		Random random = new Random(42);
		try (TimingWheel<String, String> wheel = new TimingWheel<>(Duration.ofMillis(10), 8, this::record, this.clock,
				Runnable::run)) {
			List<Integer> delaysMillis = new ArrayList<>();
			for (int i = 0; i < 300; i++) {
				delaysMillis.add(1 + random.nextInt(40_000));
			}
			for (int delayMillis : delaysMillis) {
				wheel.setTimer("t" + delayMillis, Integer.toString(delayMillis), Duration.ofMillis(delayMillis));
			}
			int pending = wheel.size();
			// A 25 s pause of the wheel's thread: everything due must fire.
			this.clock.step(Duration.ofSeconds(25));
			long dueByNow = delaysMillis.stream().filter((d) -> d <= 25_000).distinct().count();
			soon().until(() -> this.fired.size() == dueByNow);
			this.clock.step(Duration.ofSeconds(25));
			soon().until(() -> this.fired.size() == pending);
			List<Integer> firedDelays = this.fired.stream().map((f) -> Integer.parseInt(f.value())).toList();
			List<Integer> sorted = new ArrayList<>(firedDelays);
			Collections.sort(sorted);
			assertThat(firedDelays).isEqualTo(sorted).doesNotHaveDuplicates();
			assertThat(wheel.size()).isZero();
		}
	}

	static Stream<Duration> longDelays() {
		return Stream.of(Duration.ofSeconds(9), Duration.ofMinutes(10), Duration.ofHours(5), Duration.ofDays(3),
				Duration.ofDays(365 * 20));
	}

	@ParameterizedTest
	@MethodSource("longDelays")
	void delaysLongerThanARevolutionFireOnTime(Duration delay) {
		try (TimingWheel<String, String> wheel = newWheel(8)) {
			wheel.setTimer("k", "v", delay);
			assertFiresAt(delay.toNanos(), "k");
		}
	}

	@Test
	void idleWheelWaitsWithoutTickingAndWakesOnlyNearTheNextTimer() {
		try (TimingWheel<String, String> wheel = new TimingWheel<>(Duration.ofMillis(1), 16, this::record, this.clock,
				Runnable::run)) {
			this.clock.awaitParked();
			int idleParks = this.clock.parks();
			for (int i = 0; i < 200; i++) {
				this.clock.step(Duration.ofMillis(1));
			}
			wheel.setTimer("k", "v", Duration.ofMillis(1_000));
			// Only the set woke the idle wheel: 200 empty ticks went by without a wake.
			soon().until(() -> this.clock.parks() == idleParks + 1);
			for (int i = 0; i < 999; i++) {
				this.clock.step(Duration.ofMillis(1));
			}
			this.clock.awaitParked();
			assertThat(this.fired).isEmpty();
			this.clock.step(Duration.ofMillis(1));
			soon().until(() -> this.fired.size() == 1);
			this.clock.awaitParked();
			// 1000 ticks away with 16 one-tick slots: one cascade from the 16-tick level.
			assertThat(this.clock.parks() - idleParks).isLessThanOrEqualTo(4);
			assertThat(this.fired.get(0).atNanos()).isEqualTo(Duration.ofMillis(1_200).toNanos());
		}
	}

	@Test
	void drainHandsOverEveryPendingTimerAndLeavesNoStaleKeys() {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			wheel.setTimer("a", "1", Duration.ofSeconds(1));
			wheel.setTimer("b", "2", Duration.ofSeconds(30));
			wheel.setTimer("c", "3", Duration.ofDays(1));
			Map<String, String> drained = new HashMap<>();
			wheel.drain(drained::put);
			assertThat(drained).containsOnly(Map.entry("a", "1"), Map.entry("b", "2"), Map.entry("c", "3"));
			assertThat(wheel.size()).isZero();
			wheel.moveTimer("a", Duration.ofSeconds(1));
			wheel.removeTimer("b");
			assertThat(wheel.size()).isZero();
			this.clock.step(Duration.ofDays(2));
			this.clock.awaitParked();
			assertThat(this.fired).isEmpty();
			wheel.setTimer("a", "again", Duration.ofSeconds(1));
			assertThat(wheel.size()).isOne();
			this.clock.step(SECOND);
			soon().until(() -> this.fired.size() == 1);
			assertThat(this.fired).extracting(Fired::value).containsExactly("again");
		}
	}

	@Test
	void drainKeepsGoingWhenFnThrowsAndRethrowsTheFirstFailure() {
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			for (String key : List.of("a", "b", "c")) {
				wheel.setTimer(key, key, Duration.ofSeconds(1));
			}
			List<String> seen = new ArrayList<>();
			assertThatRuntimeException().isThrownBy(() -> wheel.drain((key, value) -> {
				seen.add(key);
				throw new IllegalStateException(key);
			})).satisfies((ex) -> assertThat(ex.getSuppressed()).hasSize(2));
			assertThat(seen).containsExactlyInAnyOrder("a", "b", "c");
			assertThat(wheel.size()).isZero();
		}
	}

	@Test
	void timerSetFromExecuteFires() {
		List<String> keys = new CopyOnWriteArrayList<>();
		TimingWheel<String, String>[] holder = new TimingWheel[1];
		try (TimingWheel<String, String> wheel = new TimingWheel<>(SECOND, 4, (key, value) -> {
			// Set before the key is seen: the test steps the clock once it sees the key,
			// and a timer set after that step would be due a second later.
			if (key.length() < 3) {
				holder[0].setTimer(key + "+", value, SECOND);
			}
			keys.add(key);
		}, this.clock, Runnable::run)) {
			holder[0] = wheel;
			wheel.setTimer("k", "v", SECOND);
			this.clock.step(SECOND);
			soon().until(() -> keys.size() == 1);
			this.clock.step(SECOND);
			soon().until(() -> keys.size() == 2);
			this.clock.step(SECOND);
			soon().until(() -> keys.size() == 3);
			assertThat(keys).containsExactly("k", "k+", "k++");
		}
	}

	@Test
	void executeRunsOnTheWheelsOwnDaemonThreadOffTheWheelThread() {
		List<Thread> threads = new CopyOnWriteArrayList<>();
		try (TimingWheel<String, String> wheel = new TimingWheel<>(SECOND, 4,
				(key, value) -> threads.add(Thread.currentThread()), this.clock)) {
			wheel.setTimer("k", "v", Duration.ZERO);
			soon().until(() -> threads.size() == 1);
			Thread thread = threads.get(0);
			assertThat(thread.getName()).matches("workqueue-timer-\\d+-execute");
			assertThat(thread.isDaemon()).isTrue();
			String wheelThreadName = thread.getName().replace("-execute", "-wheel");
			assertThat(findThread(wheelThreadName)).isNotNull().satisfies((t) -> assertThat(t.isDaemon()).isTrue());
		}
	}

	@Test
	void executeFailureIsLoggedAndDoesNotStopTheWheel() {
		Logger logger = Logger.getLogger(TimingWheel.class.getName());
		List<LogRecord> records = new CopyOnWriteArrayList<>();
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord record) {
				records.add(record);
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		logger.addHandler(handler);
		try (TimingWheel<String, String> wheel = new TimingWheel<>(SECOND, 4, (key, value) -> {
			if (key.startsWith("bad")) {
				throw new IllegalStateException("boom " + key);
			}
			record(key, value);
		}, this.clock)) {
			wheel.setTimer("bad1", "v", Duration.ofSeconds(1));
			wheel.setTimer("good1", "v", Duration.ofSeconds(1));
			wheel.setTimer("bad2", "v", Duration.ofSeconds(2));
			wheel.setTimer("good2", "v", Duration.ofSeconds(3));
			this.clock.step(Duration.ofSeconds(3));
			soon().until(() -> this.fired.size() == 2);
			assertThat(this.fired).extracting(Fired::key).containsExactly("good1", "good2");
			soon().until(() -> records.size() == 2);
			assertThat(records).allSatisfy((record) -> {
				assertThat(record.getThrown()).isInstanceOf(IllegalStateException.class);
				assertThat(record.getMessage()).as("the key's class, never its toString")
					.contains(String.class.getName())
					.doesNotContain("bad");
			});
		}
		finally {
			logger.removeHandler(handler);
		}
	}

	@Test
	void stopReleasesThreadsAndNoTimerFiresAfterIt() {
		List<Thread> threads = new CopyOnWriteArrayList<>();
		TimingWheel<String, String> wheel = new TimingWheel<>(SECOND, 4, (key, value) -> {
			threads.add(Thread.currentThread());
			record(key, value);
		}, this.clock);
		wheel.setTimer("first", "v", Duration.ZERO);
		soon().until(() -> this.fired.size() == 1);
		String executeThreadName = threads.get(0).getName();
		Thread wheelThread = findThread(executeThreadName.replace("-execute", "-wheel"));
		wheel.setTimer("pending", "v", Duration.ofSeconds(1));
		wheel.setTimer("later", "v", Duration.ofSeconds(10));
		wheel.stop();
		this.clock.step(Duration.ofSeconds(20));
		soon().until(() -> !wheelThread.isAlive() && !threads.get(0).isAlive());
		assertThat(this.fired).hasSize(1);
		assertThat(wheel.size()).isEqualTo(2);
		Map<String, String> drained = new HashMap<>();
		wheel.drain(drained::put);
		assertThat(drained).containsOnlyKeys("pending", "later");
		wheel.stop();
	}

	/**
	 * A timer taken out to fire is no longer pending ({@code drain} cannot hand it out),
	 * so it fires even if the wheel stops before its task runs: once, never lost.
	 */
	@Test
	void timersDueButNotYetRunWhenStoppedStillRunOnce() {
		List<String> keys = new CopyOnWriteArrayList<>();
		List<Runnable> tasks = new CopyOnWriteArrayList<>();
		try (TimingWheel<String, String> wheel = new TimingWheel<>(SECOND, 4, (key, value) -> keys.add(key), this.clock,
				tasks::add)) {
			wheel.setTimer("k", "v", SECOND);
			wheel.setTimer("k2", "v", SECOND);
			this.clock.step(SECOND);
			soon().until(() -> tasks.size() == 1);
			wheel.stop();
			Map<String, String> drained = new HashMap<>();
			wheel.drain(drained::put);
			assertThat(drained).isEmpty();
			tasks.get(0).run();
			assertThat(keys).containsExactlyInAnyOrder("k", "k2");
		}
	}

	/**
	 * An executor that rejects a batch because the wheel stopped meanwhile (as the
	 * default one, shut down by stop) does not lose it: it runs on the wheel's thread.
	 */
	@Test
	void timersDueWhenAStoppedWheelsExecutorRejectsThemStillRunOnce() {
		List<String> keys = new CopyOnWriteArrayList<>();
		AtomicReference<TimingWheel<String, String>> wheelRef = new AtomicReference<>();
		Executor stopsThenRejects = (task) -> {
			wheelRef.get().stop();
			throw new RejectedExecutionException("stopped");
		};
		try (TimingWheel<String, String> wheel = new TimingWheel<>(SECOND, 4, (key, value) -> keys.add(key), this.clock,
				stopsThenRejects)) {
			wheelRef.set(wheel);
			wheel.setTimer("k", "v", SECOND);
			this.clock.step(SECOND);
			soon().until(() -> keys.size() == 1);
			assertThat(keys).containsExactly("k");
			assertThat(wheel.size()).isZero();
		}
	}

	static Stream<Arguments> stoppers() {
		return Stream.of(Arguments.of("stop", (StopAction) TimingWheel::stop),
				Arguments.of("close", (StopAction) TimingWheel::close));
	}

	@ParameterizedTest(name = "after {0}")
	@MethodSource("stoppers")
	void setTimerAndMoveTimerThrowAfterStopWhateverTheKey(String name, StopAction stopAction) {
		TimingWheel<String, String> wheel = newWheel(4);
		wheel.setTimer("present", "v", Duration.ofSeconds(5));
		stopAction.stop(wheel);
		assertThatIllegalStateException().isThrownBy(() -> wheel.setTimer("present", "v", SECOND));
		assertThatIllegalStateException().isThrownBy(() -> wheel.setTimer("absent", "v", SECOND));
		assertThatIllegalStateException().isThrownBy(() -> wheel.moveTimer("present", SECOND));
		assertThatIllegalStateException().isThrownBy(() -> wheel.moveTimer("absent", SECOND));
		wheel.removeTimer("present");
		assertThat(wheel.size()).isZero();
	}

	@Test
	void wheelThreadEndedByAThrowingClockIsRestartedByTheNextCallAndKeepsItsTimers() {
		AtomicBoolean failing = new AtomicBoolean();
		Clock flaky = new Clock() {

			@Override
			public long nanoTime() {
				if (failing.get()) {
					throw new IllegalStateException("clock failed");
				}
				return TimingWheelTests.this.clock.nanoTime();
			}

			@Override
			public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
				TimingWheelTests.this.clock.awaitUntil(lock, condition, deadlineNanos);
			}

		};
		try (TimingWheel<String, String> wheel = new TimingWheel<>(SECOND, 4, this::record, flaky)) {
			wheel.setTimer("a", "1", Duration.ofSeconds(1));
			failing.set(true);
			// Wakes the sleeping thread at a's tick: its next clock read throws.
			this.clock.step(Duration.ofSeconds(1));
			soon().until(() -> wheelThreads(wheel) == 0);
			failing.set(false);
			wheel.setTimer("b", "2", Duration.ofSeconds(1));
			this.clock.step(Duration.ofSeconds(2));
			soon().until(() -> this.fired.size() == 2);
			assertThat(this.fired).extracting(Fired::key).containsExactly("a", "b");
		}
	}

	@Test
	void executeFailureForAKeyWhoseToStringThrowsStopsNothing() {
		Object badKey = new Object() {

			@Override
			public String toString() {
				throw new IllegalStateException("toString must not be called");
			}

		};
		List<Object> fired = new CopyOnWriteArrayList<>();
		try (TimingWheel<Object, String> wheel = new TimingWheel<>(SECOND, 4, (key, value) -> {
			if (key == badKey) {
				throw new IllegalStateException("boom");
			}
			fired.add(key);
		}, this.clock)) {
			wheel.setTimer(badKey, "v", Duration.ofSeconds(1));
			wheel.setTimer("good", "v", Duration.ofSeconds(1));
			this.clock.step(Duration.ofSeconds(1));
			soon().until(() -> fired.size() == 1);
			wheel.setTimer("later", "v", Duration.ofSeconds(1));
			this.clock.step(Duration.ofSeconds(1));
			soon().until(() -> fired.size() == 2);
			assertThat(fired).containsExactly("good", "later");
		}
	}

	/** Live threads of {@code wheel}, found by the name its threads share. */
	private static long wheelThreads(TimingWheel<?, ?> wheel) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(wheel.threadName()) && thread.isAlive())
			.count();
	}

	@Test
	void invalidArgumentsAreRejectedNamingTheArgument() {
		assertThatIllegalArgumentException().isThrownBy(() -> newWheel(0)).withMessageContaining("numSlots");
		assertThatIllegalArgumentException().isThrownBy(() -> newWheel(-1)).withMessageContaining("numSlots");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new TimingWheel<String, String>(Duration.ZERO, 4, this::record, this.clock))
			.withMessageContaining("interval");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new TimingWheel<String, String>(Duration.ofMillis(-1), 4, this::record))
			.withMessageContaining("interval");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new TimingWheel<String, String>(Duration.ofNanos(999_999), 4, this::record))
			.withMessageContaining("interval");
		assertThatNullPointerException().isThrownBy(() -> new TimingWheel<String, String>(null, 4, this::record))
			.withMessage("interval");
		assertThatNullPointerException().isThrownBy(() -> new TimingWheel<String, String>(SECOND, 4, null))
			.withMessage("execute");
		assertThatNullPointerException()
			.isThrownBy(() -> new TimingWheel<String, String>(SECOND, 4, this::record, null))
			.withMessage("clock");
		assertThatNullPointerException()
			.isThrownBy(() -> new TimingWheel<String, String>(SECOND, 4, this::record, this.clock, null))
			.withMessage("executor");
		try (TimingWheel<String, String> wheel = newWheel(4)) {
			assertThatNullPointerException().isThrownBy(() -> wheel.setTimer(null, "v", SECOND)).withMessage("key");
			assertThatNullPointerException().isThrownBy(() -> wheel.setTimer("k", null, SECOND)).withMessage("value");
			assertThatNullPointerException().isThrownBy(() -> wheel.setTimer("k", "v", null)).withMessage("delay");
			assertThatNullPointerException().isThrownBy(() -> wheel.moveTimer(null, SECOND)).withMessage("key");
			assertThatNullPointerException().isThrownBy(() -> wheel.moveTimer("k", null)).withMessage("delay");
			assertThatNullPointerException().isThrownBy(() -> wheel.removeTimer(null)).withMessage("key");
			assertThatNullPointerException().isThrownBy(() -> wheel.drain(null)).withMessage("fn");
		}
	}

	/**
	 * Steps to just before {@code expectedNanos}, checks that {@code key} has not fired,
	 * then steps to it and waits for {@code key} to fire exactly then.
	 */
	private void assertFiresAt(long expectedNanos, String key) {
		this.clock.stepTo(expectedNanos - 1);
		this.clock.awaitParked();
		assertThat(this.fired).extracting(Fired::key).as("fired before %d ns", expectedNanos).doesNotContain(key);
		this.clock.step(Duration.ofNanos(1));
		soon().until(() -> this.fired.stream().anyMatch((f) -> f.key().equals(key)));
		Fired fire = this.fired.stream().filter((f) -> f.key().equals(key)).findFirst().orElseThrow();
		assertThat(fire.atNanos()).isEqualTo(expectedNanos);
	}

	/** Awaitility polling every millisecond for at most ten seconds. */
	static ConditionFactory soon() {
		return Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(1));
	}

	private static long ceilToSecond(long nanos) {
		return -Math.floorDiv(-nanos, SECOND_NANOS) * SECOND_NANOS;
	}

	private static Thread findThread(String name) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(name))
			.findFirst()
			.orElse(null);
	}

	@FunctionalInterface
	interface StopAction {

		void stop(TimingWheel<String, String> wheel);

	}

	record Fired(String key, String value, long atNanos) {

	}

}
