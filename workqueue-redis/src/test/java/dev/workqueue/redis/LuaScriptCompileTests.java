package dev.workqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every script, as sent, compiles in the real Redis, and uses nothing it does not
 * include: Redis's Lua compiles each file ({@code loadstring}, then {@code string.dump}),
 * and {@link LuaBytecode} lists the globals the compiled code reads. A helper used
 * without its include is such a global, on whatever path of the script it sits; Redis
 * would fail that path only when it runs. Nothing is written to the server's keys.
 */
@RequiresRedis
class LuaScriptCompileTests {

	/** What Redis gives every script; anything else a script reads must be included. */
	private static final Set<String> REDIS_GLOBALS = Set.of("KEYS", "ARGV", "redis", "math", "string", "table",
			"tonumber", "tostring", "type", "ipairs", "pairs", "unpack", "error", "pcall", "select", "next", "cmsgpack",
			"cjson");

	/** Compiles ARGV[1] in Redis's Lua, named ARGV[2], and replies with its dump. */
	private static final String DUMP = "local f, err = loadstring(ARGV[1], ARGV[2]) "
			+ "if not f then return redis.error_reply(err) end return string.dump(f)";

	private static RedisClient client;

	private static StatefulRedisConnection<byte[], byte[]> connection;

	@BeforeAll
	static void connect() {
		client = RedisClient.create(RedisServers.shared());
		connection = client.connect(ByteArrayCodec.INSTANCE);
	}

	@AfterAll
	static void disconnect() {
		connection.close();
		client.shutdown();
	}

	@Test
	void everyScriptLoadsIntoRedisUnderItsSha1() {
		for (LuaScript script : LuaScript.ALL) {
			String sha1 = connection.sync().scriptLoad(script.source().getBytes(StandardCharsets.UTF_8));
			assertThat(sha1).as(script.name()).isEqualTo(script.sha1());
		}
	}

	@Test
	void noScriptReadsAGlobalRedisDoesNotGiveIt() {
		for (LuaScript script : LuaScript.ALL) {
			String withoutShebang = script.source().substring(script.source().indexOf('\n') + 1);
			assertThat(compile(script.name(), withoutShebang).globals()).as(script.name()).isSubsetOf(REDIS_GLOBALS);
		}
	}

	@Test
	void everyFileIncludesWhatItUsesAndUsesWhatItIncludes() {
		Set<String> files = new TreeSet<>();
		for (LuaScript script : LuaScript.ALL) {
			files.add(script.name());
			for (String include : LuaIncludes.includes(script.name(), LuaScript.read(script.name()))) {
				files.add(LuaScript.INCLUDES_FOLDER + include);
			}
		}
		// Includes reached only through other includes.
		for (String file : Set.copyOf(files)) {
			for (String include : LuaIncludes.includes(file, LuaScript.read(file))) {
				files.add(LuaScript.INCLUDES_FOLDER + include);
			}
		}
		for (String file : files) {
			String text = LuaScript.read(file);
			Set<String> used = new HashSet<>(compile(file, text).globals());
			used.removeAll(REDIS_GLOBALS);
			Set<String> defined = new HashSet<>();
			for (String include : LuaIncludes.includes(file, text)) {
				Set<String> names = compile(include, LuaScript.read(LuaScript.INCLUDES_FOLDER + include)).locals();
				assertThat(names).as(file + " uses what " + include + " defines").containsAnyElementsOf(used);
				defined.addAll(names);
			}
			assertThat(defined).as(file + " includes what it uses").containsAll(used);
		}
	}

	@Test
	void aHelperUsedWithoutItsIncludeIsFound() {
		String script = LuaScript.read("list/get").replace("-- @include lease_list\n", "");
		assertThat(compile("list/get without its include", script).globals()).contains("lease_list");
		String included = new LuaIncludes((name) -> LuaScript.read(LuaScript.INCLUDES_FOLDER + name))
			.resolve("list/get", LuaScript.read("list/get"));
		assertThat(compile("list/get", included).globals()).isSubsetOf(REDIS_GLOBALS);
	}

	private static LuaBytecode compile(String name, String text) {
		byte[] dump = connection.sync()
			.eval(DUMP, ScriptOutputType.VALUE, new byte[0][], text.getBytes(StandardCharsets.UTF_8),
					("=" + name).getBytes(StandardCharsets.UTF_8));
		return LuaBytecode.parse(dump);
	}

}
