package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The include resolver on small made-up files: each include once, after what it includes,
 * every file whole and in order, and a clear failure for a bad line, an unknown name or a
 * cycle.
 */
class LuaIncludesTests {

	@Test
	void aScriptWithoutIncludesIsItsOwnText() {
		LuaIncludes includes = new LuaIncludes(Map.<String, String>of()::get);
		assertThat(includes.resolve("s", "-- s: nothing\nreturn 1\n")).isEqualTo("-- s: nothing\nreturn 1\n");
	}

	@Test
	void eachIncludeComesOnceAfterWhatItIncludesAndBeforeItsUsers() {
		Map<String, String> files = Map.of("a", "-- @include b\n-- @include c\nlocal a\n", "b",
				"-- @include d\nlocal b\n", "c", "-- @include d\nlocal c\n", "d", "local d\n", "unused", "local u\n");
		LuaIncludes includes = new LuaIncludes(files::get);
		String script = "-- s: a diamond\n-- @include a\n-- @include d\nreturn a\n";
		assertThat(includes.resolve("s", script))
			.isEqualTo(files.get("d") + files.get("b") + files.get("c") + files.get("a") + script);
	}

	@Test
	void anIncludeWithoutAFinalNewlineGetsOneSoTheNextFileStartsOnItsOwnLine() {
		LuaIncludes includes = new LuaIncludes(Map.of("a", "local a")::get);
		assertThat(includes.resolve("s", "-- @include a\nreturn a")).isEqualTo("local a\n-- @include a\nreturn a");
	}

	@Test
	void eachIncludeIsReadOnceForAllScripts() {
		Map<String, String> files = Map.of("a", "local a\n", "b", "-- @include a\nlocal b\n");
		List<String> reads = new ArrayList<>();
		LuaIncludes includes = new LuaIncludes((name) -> {
			reads.add(name);
			return files.get(name);
		});
		includes.resolve("s", "-- @include b\n");
		includes.resolve("t", "-- @include a\n-- @include b\n");
		assertThat(reads).containsExactly("b", "a");
	}

	/** Random include graphs without cycles: the rules hold on every one. */
	@ParameterizedTest
	@MethodSource("seeds")
	void nothingIsLostRepeatedOrReordered(long seed) {
		Random random = new Random(seed);
		int count = 2 + random.nextInt(12);
		Map<String, List<String>> edges = new HashMap<>();
		Map<String, String> files = new HashMap<>();
		for (int i = 0; i < count; i++) {
			// Include i names only includes of a higher number: no cycle.
			List<String> named = new ArrayList<>();
			for (int j = i + 1; j < count; j++) {
				if (random.nextInt(3) == 0) {
					named.add("f" + j);
				}
			}
			edges.put("f" + i, named);
			files.put("f" + i, text("f" + i, named));
		}
		List<String> roots = IntStream.range(0, count)
			.filter((i) -> random.nextBoolean())
			.mapToObj((i) -> "f" + i)
			.toList();
		String script = text("script", roots);
		String resolved = new LuaIncludes(files::get).resolve("script", script);

		assertThat(resolved).endsWith(script);
		Set<String> reached = new HashSet<>();
		roots.forEach((root) -> reach(root, edges, reached));
		for (int i = 0; i < count; i++) {
			String name = "f" + i;
			int at = resolved.indexOf(files.get(name));
			if (!reached.contains(name)) {
				assertThat(at).as(name + " is not reached").isNegative();
				continue;
			}
			assertThat(at).as(name + " is inlined").isNotNegative();
			assertThat(resolved.indexOf(files.get(name), at + 1)).as(name + " is inlined once").isNegative();
			for (String dependency : edges.get(name)) {
				assertThat(resolved.indexOf(files.get(dependency))).as(dependency + " comes before " + name)
					.isLessThan(at);
			}
		}
		int inlined = resolved.length() - script.length();
		assertThat(inlined).as("nothing but the files reached")
			.isEqualTo(reached.stream().mapToInt((name) -> files.get(name).length()).sum());
	}

	static IntStream seeds() {
		return IntStream.range(0, 50);
	}

	private static String text(String name, List<String> includes) {
		StringBuilder text = new StringBuilder("-- " + name + ": a file\n");
		includes.forEach((include) -> text.append("-- @include ").append(include).append('\n'));
		return text.append("local ").append(name).append(" = 1\n").toString();
	}

	private static void reach(String name, Map<String, List<String>> edges, Set<String> reached) {
		if (reached.add(name)) {
			edges.get(name).forEach((next) -> reach(next, edges, reached));
		}
	}

	@Test
	void anUnknownIncludeFailsNamingTheChainThatLedToIt() {
		LuaIncludes includes = new LuaIncludes(Map.of("a", "-- @include missing\n")::get);
		assertThatIllegalStateException().isThrownBy(() -> includes.resolve("list/get", "-- @include a\n"))
			.withMessage("Unknown Lua include 'missing' in list/get -> a");
	}

	@Test
	void aCycleFailsNamingIt() {
		LuaIncludes includes = new LuaIncludes(
				Map.of("a", "-- @include b\n", "b", "-- @include c\n", "c", "-- @include a\n")::get);
		assertThatIllegalStateException().isThrownBy(() -> includes.resolve("s", "-- @include a\n"))
			.withMessage("Lua include cycle: s -> a -> b -> c -> a");
	}

	@Test
	void anIncludeThatIncludesItselfIsACycle() {
		LuaIncludes includes = new LuaIncludes(Map.of("a", "-- @include a\n")::get);
		assertThatIllegalStateException().isThrownBy(() -> includes.resolve("s", "-- @include a\n"))
			.withMessage("Lua include cycle: s -> a -> a");
	}

	@ParameterizedTest
	@ValueSource(strings = { "-- @include", "-- @include ", "--@include a", "-- @include A", "-- @include a b",
			"-- @include a.lua", "--- @include \"includes/a.lua\"", "-- @includes a", "--  @include a" })
	void aMalformedIncludeLineFailsRatherThanBeingSkipped(String line) {
		LuaIncludes includes = new LuaIncludes(Map.of("a", "local a\n")::get);
		assertThatIllegalStateException().isThrownBy(() -> includes.resolve("s", "-- s\n" + line + "\nreturn a\n"))
			.withMessageStartingWith("Malformed Lua include line in s: '" + line + "'");
	}

	@Test
	void aMalformedLineInAnIncludeNamesTheInclude() {
		LuaIncludes includes = new LuaIncludes(Map.of("a", "-- @include b c\n")::get);
		assertThatIllegalStateException().isThrownBy(() -> includes.resolve("s", "-- @include a\n"))
			.withMessageStartingWith("Malformed Lua include line in a:");
	}

	@Test
	void anIncludeMentionedInsideACommentLineIsNoInclude() {
		LuaIncludes includes = new LuaIncludes(Map.<String, String>of()::get);
		String script = "-- see the @include lines below\nreturn 1 -- @include nothing\n";
		assertThat(includes.resolve("s", script)).isEqualTo(script);
	}

}
