package dev.workqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One of the queue's Lua scripts, with the shared prelude in front, and its SHA-1 digest
 * so that it runs with {@code EVALSHA} (falling back to {@code EVAL} once per server,
 * whose script cache starts empty after a restart or failover).
 *
 * @param name the script's name, for messages
 * @param source the full source
 * @param sha1 its SHA-1, as {@code EVALSHA} wants it
 */
record LuaScript(String name, String source, String sha1) {

	static final LuaScript ADD = load("add");

	static final LuaScript ADD_AFTER = load("add_after");

	static final LuaScript GET = load("get");

	static final LuaScript DONE = load("done");

	static final LuaScript RELEASE = load("release");

	static final LuaScript RENEW = load("renew");

	static final LuaScript TICK = load("tick");

	static final LuaScript DEAD_LETTER = load("dead_letter");

	static final LuaScript STATS = load("stats");

	static final LuaScript CHECK_TYPES = load("check_types");

	static final LuaScript FAILURES = load("failures");

	static final LuaScript BUCKET = load("bucket");

	static final LuaScript DELETE = load("delete");

	static final LuaScript RESIGN = load("resign");

	static LuaScript load(String name) {
		String source = read("prelude") + "\n" + read(name);
		return new LuaScript(name, source, sha1(source));
	}

	private static String read(String name) {
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
