package dev.workqueue.time;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build check of STYLE §4: outside the system clock, main code never reads real time
 * nor waits with a timeout of its own; everything goes through {@link Clock}. Comments
 * and string literals are ignored, so prose may name the forbidden calls.
 */
class ClockDisciplineTests {

	/** Relative to the module directory, surefire's working directory. */
	private static final Path MAIN_SOURCES = Path.of("src/main/java");

	private static final Set<Path> SYSTEM_CLOCK = Set.of(Path.of("dev/workqueue/time/Clock.java"),
			Path.of("dev/workqueue/time/SystemClock.java"));

	private static final List<Pattern> FORBIDDEN = Stream.of("\\bSystem\\s*\\.\\s*nanoTime\\s*\\(",
			"\\bSystem\\s*\\.\\s*currentTimeMillis\\s*\\(",
			// Instant.now(), LocalDateTime.now(), ZonedDateTime.now(), ...
			"\\b(Instant|\\w*Date|\\w*DateTime|\\w*Time)\\s*\\.\\s*now\\s*\\(", "\\bThread\\s*\\.\\s*sleep\\s*\\(",
			"\\bTimeUnit\\s*\\.\\s*\\w+\\s*\\.\\s*sleep\\s*\\(", "\\.\\s*awaitNanos\\s*\\(",
			// Condition.await(long, TimeUnit), CountDownLatch.await(long, TimeUnit), ...
			"\\.\\s*await\\s*\\([^()]*,", "\\.\\s*await\\s*\\(\\s*long\\b",
			// Condition.awaitUntil(Date); Clock.awaitUntil(lock, condition, deadline) is
			// the one allowed wait
			"\\.\\s*awaitUntil\\s*\\([^(),]*\\)", "\\bLockSupport\\s*\\.\\s*park(Nanos|Until)\\s*\\(",
			"\\.\\s*(poll|offer|tryLock|tryAcquire|join|take|get|invokeAll|invokeAny|awaitTermination)\\s*\\([^;]*\\bTimeUnit\\s*\\.",
			"\\.\\s*wait\\s*\\(\\s*[^)\\s]", "\\.\\s*join\\s*\\(\\s*\\d")
		.map(Pattern::compile)
		.toList();

	@Test
	void mainCodeReadsTimeAndWaitsOnlyThroughTheClock() throws IOException {
		assertThat(MAIN_SOURCES).isDirectory();
		List<String> violations = new ArrayList<>();
		List<Path> sources;
		try (Stream<Path> files = Files.walk(MAIN_SOURCES)) {
			sources = files.filter((file) -> file.toString().endsWith(".java")).sorted().toList();
		}
		assertThat(sources).as("the scan sees the sources").hasSizeGreaterThan(10);
		for (Path file : sources) {
			Path relative = MAIN_SOURCES.relativize(file);
			if (!SYSTEM_CLOCK.contains(relative)) {
				violations.addAll(violations(relative.toString(), Files.readString(file)));
			}
		}
		assertThat(violations).as("calls to be replaced by dev.workqueue.time.Clock").isEmpty();
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
		assertThat(violations("Example.java", "class Example { void run() { " + code + " } }")).hasSize(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "long now = this.clock.nanoTime();", "this.clock.awaitUntil(lock, condition, deadline);",
			"condition.await();", "monitor.wait();", "thread.join();", "T item = queue.poll(Duration.ZERO);",
			"T item = queue.poll(timeout);", "// never call System.nanoTime() here",
			"/* Thread.sleep(1) would be wrong */", "String s = \"Thread.sleep(1)\";", "Thread.onSpinWait();",
			"bucket.tryAcquire(1, Duration.ofSeconds(1));" })
	void allowedCallsPass(String code) {
		assertThat(violations("Example.java", "class Example { void run() { " + code + " } }")).isEmpty();
	}

	@Test
	void textBlocksAndCharLiteralsAreIgnored() {
		String code = "class Example { String s = \"\"\"\n Thread.sleep(1)\n \"\"\"; char c = '\"'; "
				+ "String t = \"\\\" Instant.now()\"; }";
		assertThat(violations("Example.java", code)).isEmpty();
	}

	private static List<String> violations(String file, String source) {
		List<String> violations = new ArrayList<>();
		String[] lines = codeOnly(source).split("\n", -1);
		for (int i = 0; i < lines.length; i++) {
			for (Pattern pattern : FORBIDDEN) {
				Matcher matcher = pattern.matcher(lines[i]);
				if (matcher.find()) {
					violations.add(file + ":" + (i + 1) + ": " + lines[i].strip());
				}
			}
		}
		return violations;
	}

	/**
	 * Blanks out comments and string, text block and char literals, keeping line breaks
	 * so that line numbers stay right.
	 */
	static String codeOnly(String source) {
		StringBuilder code = new StringBuilder(source.length());
		int i = 0;
		while (i < source.length()) {
			char c = source.charAt(i);
			if (source.startsWith("//", i)) {
				i = skip(source, i, source.indexOf('\n', i), code);
			}
			else if (source.startsWith("/*", i)) {
				int end = source.indexOf("*/", i + 2);
				i = skip(source, i, (end < 0) ? -1 : end + 2, code);
			}
			else if (source.startsWith("\"\"\"", i)) {
				int end = source.indexOf("\"\"\"", i + 3);
				i = skip(source, i, (end < 0) ? -1 : end + 3, code);
			}
			else if (c == '"' || c == '\'') {
				int end = i + 1;
				while (end < source.length() && source.charAt(end) != c) {
					end += (source.charAt(end) == '\\') ? 2 : 1;
				}
				i = skip(source, i, Math.min(end + 1, source.length()), code);
			}
			else {
				code.append(c);
				i++;
			}
		}
		return code.toString();
	}

	/** Appends the line breaks of {@code source[from, to)} (to the end if -1). */
	private static int skip(String source, int from, int to, StringBuilder code) {
		int end = (to < 0) ? source.length() : to;
		for (int j = from; j < end; j++) {
			if (source.charAt(j) == '\n') {
				code.append('\n');
			}
		}
		code.append(' ');
		return end;
	}

}
