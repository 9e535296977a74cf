package dev.workqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import io.lettuce.core.ScriptOutputType;

/**
 * One of the Lua scripts, each a file beside this class whose header states its KEYS,
 * ARGV and reply. A queue's scripts get {@code prelude.lua} in front, which fixes the
 * queue's keys in {@link QueueKeys#all()} order (each script only the definitions it
 * uses, see {@link Prelude}); the limiters' scripts stand alone. Every script starts with
 * a shebang, so that Redis refuses a script that writes before its first command when out
 * of memory; the read-only ones say {@code no-writes}. Scripts run with {@code EVALSHA},
 * falling back to {@code EVAL} once per server, whose script cache starts empty after a
 * restart or failover.
 *
 * @param name the script's file name without {@code .lua}, for messages
 * @param source the full source
 * @param sha1 its SHA-1, as {@code EVALSHA} wants it
 * @param output what it replies
 */
record LuaScript(String name, String source, String sha1, ScriptOutputType output) {

	/** What the queue scripts share; each gets the part it uses. */
	private static final Prelude PRELUDE = Prelude.parse(read("prelude"));

	static final LuaScript ADD = queue("add", ScriptOutputType.INTEGER);

	static final LuaScript ADD_AFTER = queue("add_after", ScriptOutputType.INTEGER);

	static final LuaScript GET = queue("get", ScriptOutputType.MULTI);

	static final LuaScript DONE = queue("done", ScriptOutputType.INTEGER);

	static final LuaScript DONE_GET = queue("done_get", ScriptOutputType.MULTI);

	static final LuaScript RELEASE = queue("release", ScriptOutputType.INTEGER);

	static final LuaScript RENEW = queue("renew", ScriptOutputType.MULTI);

	static final LuaScript RECONCILE = readOnly(queue("reconcile", ScriptOutputType.MULTI));

	static final LuaScript TICK = queue("tick", ScriptOutputType.MULTI);

	static final LuaScript DEAD_LETTER = queue("dead_letter", ScriptOutputType.INTEGER);

	static final LuaScript STATS = readOnly(queue("stats", ScriptOutputType.MULTI));

	static final LuaScript CHECK_TYPES = queue("check_types", ScriptOutputType.MULTI);

	static final LuaScript RESIGN = queue("resign", ScriptOutputType.INTEGER);

	static final LuaScript PADD = queue("padd", ScriptOutputType.INTEGER);

	static final LuaScript PADD_AFTER = queue("padd_after", ScriptOutputType.INTEGER);

	static final LuaScript PGET = queue("pget", ScriptOutputType.MULTI);

	static final LuaScript PDONE = queue("pdone", ScriptOutputType.INTEGER);

	static final LuaScript PDONE_GET = queue("pdone_get", ScriptOutputType.MULTI);

	static final LuaScript PRELEASE = queue("prelease", ScriptOutputType.INTEGER);

	static final LuaScript PTICK = queue("ptick", ScriptOutputType.MULTI);

	static final LuaScript PSTATS = readOnly(queue("pstats", ScriptOutputType.MULTI));

	static final LuaScript PLEVELS = readOnly(queue("plevels", ScriptOutputType.MULTI));

	static final LuaScript FAILURES = standalone("failures", ScriptOutputType.INTEGER);

	static final LuaScript BUCKET = standalone("bucket", ScriptOutputType.INTEGER);

	static final LuaScript DELETE = standalone("delete", ScriptOutputType.INTEGER);

	/** Every script, for the tests that check their headers. */
	static final List<LuaScript> ALL = List.of(ADD, ADD_AFTER, GET, DONE, DONE_GET, RELEASE, RENEW, RECONCILE, TICK,
			DEAD_LETTER, STATS, CHECK_TYPES, RESIGN, PADD, PADD_AFTER, PGET, PDONE, PDONE_GET, PRELEASE, PTICK, PSTATS,
			PLEVELS, FAILURES, BUCKET, DELETE);

	private static final String SHEBANG = "#!lua\n";

	private static LuaScript queue(String name, ScriptOutputType output) {
		String body = read(name);
		return of(name, SHEBANG + PRELUDE.linkedTo(body) + "\n" + body, output);
	}

	private static LuaScript standalone(String name, ScriptOutputType output) {
		return of(name, SHEBANG + read(name), output);
	}

	private static LuaScript readOnly(LuaScript script) {
		return of(script.name, "#!lua flags=no-writes\n" + script.source.substring(SHEBANG.length()), script.output);
	}

	private static LuaScript of(String name, String source, ScriptOutputType output) {
		return new LuaScript(name, source, sha1(source), output);
	}

	/**
	 * Reads a script file as it is, without the prelude.
	 * @param name the file name without {@code .lua}
	 * @return its text
	 */
	static String read(String name) {
		try (InputStream in = LuaScript.class.getResourceAsStream(name + ".lua")) {
			if (in == null) {
				throw new IllegalStateException("Missing script " + name + ".lua");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String sha1(String source) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
