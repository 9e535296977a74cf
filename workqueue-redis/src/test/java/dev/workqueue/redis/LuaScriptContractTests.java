package dev.workqueue.redis;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each Lua script carries its contract (a header naming the script and stating its input,
 * output and invariants), names what it includes, and binds its KEYS and ARGV to names
 * once; the queue's key order is written once, in {@code includes/queue_keys.lua}: these
 * tests hold the Java side and the files to it. (That every script compiles, and uses
 * nothing it does not include, is {@link LuaScriptCompileTests}'s, on a real Redis.)
 */
class LuaScriptContractTests {

	private static final Pattern KEY_BINDING = Pattern.compile("^local (\\w+)Key = KEYS\\[(\\d+)]$", Pattern.MULTILINE);

	/** A branch of {@code key_type}: the keys compared, then the type returned. */
	private static final Pattern KEY_TYPE_BRANCH = Pattern.compile("if (.+) then\\n\\s+return '(\\w+)'");

	private static final Pattern KEY_COMPARED = Pattern.compile("key == (\\w+)Key\\b");

	/** A KEYS or ARGV entry read at a fixed position. */
	private static final Pattern FIXED_ENTRY = Pattern.compile("\\b(KEYS|ARGV)\\[\\d+]");

	/** A line that binds names: locals declared at the top level, assigned at once. */
	private static final Pattern BINDING = Pattern.compile("^local [\\w, ]+ = .*$");

	@Test
	void theQueueKeysAreBoundInTheOrderQueueKeysPassesThem() {
		Matcher binding = KEY_BINDING.matcher(LuaScript.read("includes/queue_keys"));
		List<String> names = new ArrayList<>();
		while (binding.find()) {
			assertThat(Integer.parseInt(binding.group(2))).as(binding.group()).isEqualTo(names.size() + 1);
			names.add(binding.group(1));
		}
		assertThat(names).containsExactlyElementsOf(queueKeyNames());
		QueueKeys keys = QueueKeys.of("p:", "n");
		assertThat(keys.all()).containsExactly(keys.queue(), keys.dirty(), keys.processing(), keys.leases(),
				keys.waiting(), keys.givenUp(), keys.reporter(), keys.ready(), keys.since(), keys.priorities(),
				keys.grants(), keys.wake(), keys.mark(), keys.givenUpAt(), keys.paused(), keys.attempts(), keys.dead());
	}

	@Test
	void eachKeyHasOneType() {
		Matcher branch = KEY_TYPE_BRANCH.matcher(LuaScript.read("includes/key_type"));
		List<String> keys = new ArrayList<>();
		while (branch.find()) {
			assertThat(branch.group(2)).isIn("list", "hash", "zset", "string");
			Matcher key = KEY_COMPARED.matcher(branch.group(1));
			while (key.find()) {
				keys.add(key.group(1));
			}
		}
		assertThat(keys).containsExactlyInAnyOrderElementsOf(queueKeyNames());
	}

	@Test
	void everyScriptStartsWithItsContract() {
		for (LuaScript script : LuaScript.ALL) {
			String text = LuaScript.read(script.name());
			String operation = script.name().substring(script.name().lastIndexOf('/') + 1);
			assertThat(text).as(script.name())
				.startsWith("-- " + operation + ": ")
				.containsPattern("(?m)^-- Input: KEYS .*; ARGV ")
				.containsPattern("(?m)^-- Output: ")
				.containsPattern("(?m)^-- Invariants: ");
		}
	}

	@Test
	void queueScriptsTakeTheQueuesKeysAndTheLimitersNameTheirOwn() {
		String queueKeys = LuaScript.read("includes/queue_keys");
		for (LuaScript script : LuaScript.ALL) {
			String text = LuaScript.read(script.name());
			if (script.name().startsWith("limiter/")) {
				assertThat(text).as(script.name()).containsPattern("(?m)^-- Input: KEYS 1 ");
				assertThat(LuaIncludes.includes(script.name(), text)).as(script.name()).isEmpty();
			}
			else {
				assertThat(text).as(script.name())
					.contains("-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's\n"
							+ "--   (includes/queue_keys.lua)");
				assertThat(script.source()).as(script.name()).contains(queueKeys);
			}
			assertThat(script.source()).as(script.name() + " runs with a shebang").startsWith("#!lua");
		}
	}

	@Test
	void keysAndArgumentsAtAFixedPositionAreReadOnlyWhereTheyAreBoundToNames() throws IOException {
		for (Path file : luaFiles()) {
			Files.readAllLines(file)
				.stream()
				.filter((line) -> !line.strip().startsWith("--") && FIXED_ENTRY.matcher(line).find())
				.forEach((line) -> assertThat(line).as(file.toString()).matches(BINDING));
		}
	}

	@Test
	void everyLuaFileIsAScriptOrAnIncludeThatAScriptReaches() throws IOException {
		Set<String> scripts = new HashSet<>();
		Set<String> reached = new TreeSet<>();
		for (LuaScript script : LuaScript.ALL) {
			scripts.add(script.name());
			reach(script.name(), LuaScript.read(script.name()), reached);
		}
		Set<String> files = new TreeSet<>();
		for (Path file : luaFiles()) {
			String name = folder().relativize(file).toString().replace('\\', '/').replaceFirst("\\.lua$", "");
			files.add(name);
		}
		Set<String> expected = new TreeSet<>(scripts);
		reached.forEach((include) -> expected.add(LuaScript.INCLUDES_FOLDER + include));
		assertThat(files).containsExactlyElementsOf(expected);
	}

	private static void reach(String name, String text, Set<String> reached) {
		for (String include : LuaIncludes.includes(name, text)) {
			if (reached.add(include)) {
				reach(include, LuaScript.read(LuaScript.INCLUDES_FOLDER + include), reached);
			}
		}
	}

	private static List<String> queueKeyNames() {
		return Stream.of(QueueKeys.class.getRecordComponents())
			.map(RecordComponent::getName)
			.filter((name) -> !name.equals("channel"))
			.toList();
	}

	private static List<Path> luaFiles() throws IOException {
		try (Stream<Path> files = Files.walk(folder())) {
			return files.filter((file) -> file.toString().endsWith(".lua")).sorted().toList();
		}
	}

	private static Path folder() {
		try {
			return Path.of(LuaScript.class.getResource("list/get.lua").toURI()).getParent().getParent();
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
