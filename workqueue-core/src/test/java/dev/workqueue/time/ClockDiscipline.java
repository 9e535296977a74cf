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

/**
 * The build check of STYLE §4, shared by every module's tests (through core's test jar):
 * outside the system clock, main code never reads real time nor waits with a timeout of
 * its own; everything goes through {@link Clock}. Comments and string literals are
 * ignored, so prose may name the forbidden calls.
 */
public final class ClockDiscipline {

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

	private ClockDiscipline() {
	}

	/**
	 * Scans every Java file under {@code mainSources}.
	 * @param mainSources the source root, such as {@code src/main/java}
	 * @param allowed files, relative to the root, that may read real time (the system
	 * clock)
	 * @return every violation, as {@code file:line: code}
	 * @throws IOException if a file cannot be read
	 */
	public static List<String> scan(Path mainSources, Set<Path> allowed) throws IOException {
		List<Path> sources;
		try (Stream<Path> files = Files.walk(mainSources)) {
			sources = files.filter((file) -> file.toString().endsWith(".java")).sorted().toList();
		}
		if (sources.isEmpty()) {
			throw new IllegalStateException("No Java sources under " + mainSources.toAbsolutePath());
		}
		List<String> violations = new ArrayList<>();
		for (Path file : sources) {
			Path relative = mainSources.relativize(file);
			if (!allowed.contains(relative)) {
				violations.addAll(violations(relative.toString(), Files.readString(file)));
			}
		}
		return violations;
	}

	/**
	 * Returns the forbidden calls in {@code source}, one line each.
	 * @param file the file's name, for the report
	 * @param source its text
	 * @return {@code file:line: code} per violation
	 */
	public static List<String> violations(String file, String source) {
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
	private static String codeOnly(String source) {
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
