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
 * One of the Lua scripts, resolved from its file beside this class. Every script starts
 * with a header block: what it does, its {@code Input} (KEYS and ARGV), its
 * {@code Output}, the invariants it keeps; then the includes it uses, one
 * {@code -- @include name} line each; then its KEYS and ARGV bound to names, once.
 * <h2>The folder, read as the list of operations</h2>
 * <ul>
 * <li>{@code list/}: the plain queue's operations on its ready LIST (client-go's FIFO):
 * {@code add}, {@code add_after}, {@code get}, {@code done}, {@code done_get},
 * {@code release}, {@code tick}, {@code stats}.</li>
 * <li>{@code priority/}: the same operations, with the same KEYS and the same ARGV order,
 * for the priority queue's ready ZSET and its companions, and {@code levels}.</li>
 * <li>the top level: the operations both layouts share ({@code check_types},
 * {@code renew}, {@code reconcile}, {@code dead_letter}, {@code resign}, {@code mark},
 * {@code move_dead_letters}), and an operator's look into the queue
 * ({@link RedisInspection}): {@code items}, {@code find}, {@code keep_given_up},
 * {@code delete_given_up}, {@code given_up_count}, {@code pause}, {@code paused}.</li>
 * <li>{@code limiter/}: the shared rate limiters' scripts ({@code bucket},
 * {@code failures}, {@code delete}), which stand alone: their own keys, no includes.</li>
 * <li>{@code includes/}: the helpers, one per file, named after what it defines, each
 * naming the includes it uses in turn. Every queue script reaches {@code queue_keys},
 * which binds the queue's KEYS to names in {@link QueueKeys#all()} order, and the first
 * two ARGV (the time, the channel) that {@link QueueScripts} passes to every queue
 * script.</li>
 * </ul>
 * <p>
 * {@link LuaIncludes} inlines each include a script reaches once, dependencies first, and
 * nothing else: Redis runs the whole text of a script on every call (each
 * {@code local function} a closure made anew), and defining every helper in every script
 * costs 3 to 4 µs more server time per call (measured with {@code INFO commandstats} and
 * the server's CPU time), as much as a whole {@code done}. Every script starts with a
 * shebang whose flags say what Redis may run when out of memory ({@code maxmemory} with a
 * policy that refuses writes):
 * <ul>
 * <li>the scripts that may grow the memory in net (the adds, {@code dead_letter},
 * {@code keep_given_up} and {@code move_dead_letters}, the failure counts and token
 * buckets) carry none: Redis refuses them before their first command, so an out-of-memory
 * error never leaves half a change behind;</li>
 * <li>the scripts consumers need to drain the backlog that filled the memory carry
 * {@code allow-oom}, and Redis runs all of each: {@code done} and {@code resign} and the
 * bucket's {@code delete} and {@code delete_given_up} only free memory; {@code release},
 * {@code renew} and the tick move items between the queue's keys (the tick may also set
 * the reporter role, one small key per queue); {@code get} moves items from the ready
 * list to the leases and keeps its reply for a replay until the first of its leases ends,
 * growth bounded by the items in flight and freed by their {@code done};
 * {@code check_types} only reads and publishes; {@code mark} sets one small key once per
 * queue, at a handle's start, and {@code pause} one small key per queue, which a resume
 * must be able to delete;</li>
 * <li>the read-only ones say {@code no-writes}, which Redis runs out of memory too.</li>
 * </ul>
 * Scripts run with {@code EVALSHA}, falling back to {@code EVAL} once per server, whose
 * script cache starts empty after a restart or failover.
 * <p>
 * Every script is safe to run twice with the same arguments, as Lettuce does when the
 * connection drops before a script's answer came (it sends the command again once
 * reconnected); {@code docs/redis.md} says why for each.
 *
 * @param name the script's path below this class's package, without {@code .lua}, for
 * messages
 * @param source the full source, includes resolved
 * @param sha1 its SHA-1, as {@code EVALSHA} wants it
 * @param output what it replies
 */
record LuaScript(String name, String source, String sha1, ScriptOutputType output) {

	/** The shebang of the scripts that write nothing. */
	private static final String READ_ONLY_SHEBANG = "#!lua flags=no-writes\n";

	/** Where the includes live, below this class's package. */
	static final String INCLUDES_FOLDER = "includes/";

	private static final LuaIncludes INCLUDES = new LuaIncludes((name) -> readOrNull(INCLUDES_FOLDER + name));

	static final LuaScript ADD = of("list/add", ScriptOutputType.INTEGER);

	static final LuaScript ADD_TRACED = of("list/add_traced", ScriptOutputType.INTEGER);

	static final LuaScript ADD_AFTER = of("list/add_after", ScriptOutputType.INTEGER);

	static final LuaScript GET = draining("list/get", ScriptOutputType.MULTI);

	static final LuaScript DONE = draining("list/done", ScriptOutputType.INTEGER);

	static final LuaScript DONE_GET = draining("list/done_get", ScriptOutputType.MULTI);

	static final LuaScript RELEASE = draining("list/release", ScriptOutputType.INTEGER);

	static final LuaScript TICK = draining("list/tick", ScriptOutputType.MULTI);

	static final LuaScript STATS = readOnly("list/stats", ScriptOutputType.MULTI);

	static final LuaScript PADD = of("priority/add", ScriptOutputType.INTEGER);

	static final LuaScript PADD_AFTER = of("priority/add_after", ScriptOutputType.INTEGER);

	static final LuaScript PGET = draining("priority/get", ScriptOutputType.MULTI);

	static final LuaScript PDONE = draining("priority/done", ScriptOutputType.INTEGER);

	static final LuaScript PDONE_GET = draining("priority/done_get", ScriptOutputType.MULTI);

	static final LuaScript PRELEASE = draining("priority/release", ScriptOutputType.INTEGER);

	static final LuaScript PTICK = draining("priority/tick", ScriptOutputType.MULTI);

	static final LuaScript PSTATS = readOnly("priority/stats", ScriptOutputType.MULTI);

	static final LuaScript PLEVELS = readOnly("priority/levels", ScriptOutputType.MULTI);

	static final LuaScript RENEW = draining("renew", ScriptOutputType.MULTI);

	static final LuaScript RECONCILE = readOnly("reconcile", ScriptOutputType.MULTI);

	static final LuaScript DEAD_LETTER = of("dead_letter", ScriptOutputType.INTEGER);

	static final LuaScript ITEMS = readOnly("items", ScriptOutputType.MULTI);

	static final LuaScript FIND = readOnly("find", ScriptOutputType.MULTI);

	static final LuaScript KEEP_GIVEN_UP = of("keep_given_up", ScriptOutputType.INTEGER);

	static final LuaScript DELETE_GIVEN_UP = draining("delete_given_up", ScriptOutputType.INTEGER);

	static final LuaScript GIVEN_UP_COUNT = readOnly("given_up_count", ScriptOutputType.INTEGER);

	static final LuaScript PAUSE = draining("pause", ScriptOutputType.INTEGER);

	static final LuaScript PAUSED = readOnly("paused", ScriptOutputType.INTEGER);

	static final LuaScript CHECK_TYPES = draining("check_types", ScriptOutputType.MULTI);

	static final LuaScript RESIGN = draining("resign", ScriptOutputType.INTEGER);

	static final LuaScript MARK = draining("mark", ScriptOutputType.MULTI);

	static final LuaScript MOVE_DEAD_LETTERS = of("move_dead_letters", ScriptOutputType.INTEGER);

	static final LuaScript FAILURES = of("limiter/failures", ScriptOutputType.INTEGER);

	static final LuaScript BUCKET = of("limiter/bucket", ScriptOutputType.INTEGER);

	static final LuaScript DELETE = draining("limiter/delete", ScriptOutputType.INTEGER);

	/** Every script, for the tests that check their headers. */
	static final List<LuaScript> ALL = List.of(ADD, ADD_TRACED, ADD_AFTER, GET, DONE, DONE_GET, RELEASE, TICK, STATS,
			PADD, PADD_AFTER, PGET, PDONE, PDONE_GET, PRELEASE, PTICK, PSTATS, PLEVELS, RENEW, RECONCILE, DEAD_LETTER,
			ITEMS, FIND, KEEP_GIVEN_UP, DELETE_GIVEN_UP, GIVEN_UP_COUNT, PAUSE, PAUSED, CHECK_TYPES, RESIGN, MARK,
			MOVE_DEAD_LETTERS, FAILURES, BUCKET, DELETE);

	private static LuaScript of(String name, ScriptOutputType output) {
		return resolved(name, "#!lua\n", output);
	}

	/**
	 * A script Redis runs even out of memory: it frees memory, or keeps it about even,
	 * and consumers need it to drain the backlog.
	 */
	private static LuaScript draining(String name, ScriptOutputType output) {
		return resolved(name, "#!lua flags=allow-oom\n", output);
	}

	private static LuaScript readOnly(String name, ScriptOutputType output) {
		return resolved(name, READ_ONLY_SHEBANG, output);
	}

	/**
	 * Returns whether this script only reads (a gauge's stats, the ready levels, the
	 * reporter role, a sweep's look): sent for the backend's own figures, never traced.
	 * @return whether it writes nothing
	 */
	boolean readOnly() {
		return this.source.startsWith(READ_ONLY_SHEBANG);
	}

	private static LuaScript resolved(String name, String shebang, ScriptOutputType output) {
		String source = shebang + INCLUDES.resolve(name, read(name));
		return new LuaScript(name, source, sha1(source), output);
	}

	/**
	 * Reads a script or include file as it is, without its includes.
	 * @param name its path below this class's package, without {@code .lua}
	 * @return its text
	 */
	static String read(String name) {
		String text = readOrNull(name);
		if (text == null) {
			throw new IllegalStateException("Missing script " + name + ".lua");
		}
		return text;
	}

	private static String readOrNull(String name) {
		try (InputStream in = LuaScript.class.getResourceAsStream(name + ".lua")) {
			return (in != null) ? new String(in.readAllBytes(), StandardCharsets.UTF_8) : null;
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
