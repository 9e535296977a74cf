package dev.workqueue.redis;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each Lua script carries its contract (a header naming the script and listing its KEYS,
 * ARGV and reply), and the queue's key order is written once, in {@code prelude.lua}:
 * these tests hold the Java side and the scripts to it.
 */
class LuaScriptContractTests {

	private static final Pattern KEYS_LINE = Pattern.compile("^-- KEYS: (.*)$", Pattern.MULTILINE);

	private static final Pattern KEY = Pattern.compile("(\\d+) (\\w+)");

	@Test
	void thePreludesKeyOrderIsTheOrderQueueKeysPassesThem() {
		Matcher line = KEYS_LINE.matcher(LuaScript.read("prelude"));
		assertThat(line.find()).as("prelude.lua states the queue's keys").isTrue();
		Matcher key = KEY.matcher(line.group(1));
		int position = 0;
		StringBuilder names = new StringBuilder();
		while (key.find()) {
			assertThat(Integer.parseInt(key.group(1))).isEqualTo(++position);
			names.append(key.group(2)).append(' ');
		}
		List<String> components = Arrays.stream(QueueKeys.class.getRecordComponents())
			.map(RecordComponent::getName)
			.filter((name) -> !name.equals("channel"))
			.toList();
		assertThat(names.toString().trim().split(" ")).containsExactlyElementsOf(components);
		QueueKeys keys = QueueKeys.of("p:", "n");
		assertThat(keys.all()).containsExactly(keys.queue(), keys.dirty(), keys.processing(), keys.leases(),
				keys.waiting(), keys.dead(), keys.reporter(), keys.ready(), keys.since(), keys.priorities());
	}

	@Test
	void thePreludeKeepsOneTypeForEachKey() {
		Matcher types = Pattern.compile("local TYPES = \\{(.*)}").matcher(LuaScript.read("prelude"));
		assertThat(types.find()).isTrue();
		assertThat(types.group(1).split(",")).hasSize(QueueKeys.class.getRecordComponents().length - 1);
	}

	@Test
	void thePreludeIsCutIntoWholeDefinitionsAndEachScriptGetsWhatItUsesInTheirOrder() {
		String text = LuaScript.read("prelude");
		Prelude prelude = Prelude.parse(text);
		assertThat(prelude.names()).contains("TYPES", "now_us", "check", "lease_list", "run_tick")
			.doesNotHaveDuplicates();
		String everything = prelude.linkedTo(String.join(" ", prelude.names()));
		assertThat(everything.strip()).as("nothing lost or reordered").isEqualTo(text.strip());
		String header = prelude.linkedTo("return 1");
		assertThat(header).startsWith("-- prelude:").doesNotContain("local ");
		String add = prelude.linkedTo("local now = now_us() check(1)");
		assertThat(add).contains("local function now_us()", "local function check(", "local TYPES")
			.doesNotContain("local function lease_list(");
		assertThat(add.indexOf("local TYPES")).isLessThan(add.indexOf("local function check("));
	}

	@Test
	void everyScriptStartsWithItsContract() {
		for (LuaScript script : LuaScript.ALL) {
			String text = LuaScript.read(script.name());
			assertThat(text).as(script.name())
				.startsWith("-- " + script.name() + ": ")
				.containsPattern("(?m)^-- KEYS: ")
				.containsPattern("(?m)^-- ARGV: ")
				.containsPattern("(?m)^-- Reply: ");
		}
	}

	@Test
	void queueScriptsTakeTheQueuesKeysAndStandaloneOnesNameTheirOwn() {
		for (LuaScript script : LuaScript.ALL) {
			boolean queueScript = script.source().contains("-- KEYS: 1 queue, 2 dirty");
			String keysLine = LuaScript.read(script.name())
				.lines()
				.filter((l) -> l.startsWith("-- KEYS: "))
				.findFirst()
				.orElseThrow();
			if (queueScript) {
				assertThat(keysLine).as(script.name()).isEqualTo("-- KEYS: the queue's (see prelude.lua)");
			}
			else {
				assertThat(keysLine).as(script.name()).matches("-- KEYS: 1 .*");
			}
			assertThat(script.source()).as(script.name() + " runs with a shebang").startsWith("#!lua");
		}
	}

}
