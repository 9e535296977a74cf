package dev.workqueue.time;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@link ClockDiscipline}, and its check of this module.
 */
class ClockDisciplineTests {

	/** Relative to the module directory, surefire's working directory. */
	private static final Path MAIN_SOURCES = Path.of("src/main/java");

	private static final Set<Path> SYSTEM_CLOCK = Set.of(Path.of("dev/workqueue/time/Clock.java"),
			Path.of("dev/workqueue/time/SystemClock.java"));

	@Test
	void mainCodeReadsTimeAndWaitsOnlyThroughTheClock() throws IOException {
		assertThat(MAIN_SOURCES).isDirectory();
		assertThat(ClockDiscipline.scan(MAIN_SOURCES, SYSTEM_CLOCK))
			.as("calls to be replaced by dev.workqueue.time.Clock")
			.isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "long now = System.nanoTime();", "long t = System . currentTimeMillis();",
			"Instant at = Instant.now();", "var d = LocalDateTime.now();", "Thread.sleep(10);",
			"TimeUnit.SECONDS.sleep(1);", "condition.awaitNanos(remaining);", "done.await(1, TimeUnit.SECONDS);",
			"latch.await(timeoutNanos, NANOSECONDS);", "condition.awaitUntil(date);",
			"LockSupport.parkNanos(this, 10);", "LockSupport.parkUntil(deadline);", "queue.poll(1, TimeUnit.SECONDS);",
			"lock.tryLock(5, TimeUnit.MILLISECONDS);", "executor.awaitTermination(1, TimeUnit.MINUTES);",
			"future.get(1, TimeUnit.SECONDS);", "monitor.wait(100);", "thread.join(1000);" })
	void forbiddenCallsAreCaught(String code) {
		assertThat(ClockDiscipline.violations("Example.java", "class Example { void run() { " + code + " } }"))
			.hasSize(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "long now = this.clock.nanoTime();", "this.clock.awaitUntil(lock, condition, deadline);",
			"condition.await();", "monitor.wait();", "thread.join();", "T item = queue.poll(Duration.ZERO);",
			"T item = queue.poll(timeout);", "// never call System.nanoTime() here",
			"/* Thread.sleep(1) would be wrong */", "String s = \"Thread.sleep(1)\";", "Thread.onSpinWait();",
			"bucket.tryAcquire(1, Duration.ofSeconds(1));" })
	void allowedCallsPass(String code) {
		assertThat(ClockDiscipline.violations("Example.java", "class Example { void run() { " + code + " } }"))
			.isEmpty();
	}

	@Test
	void textBlocksAndCharLiteralsAreIgnored() {
		String code = "class Example { String s = \"\"\"\n Thread.sleep(1)\n \"\"\"; char c = '\"'; "
				+ "String t = \"\\\" Instant.now()\"; }";
		assertThat(ClockDiscipline.violations("Example.java", code)).isEmpty();
	}

}
