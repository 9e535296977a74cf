package dev.workqueue.benchmarks;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The measurement's own connection to the Redis the Redis benchmarks share: a few lines
 * of RESP over a socket, so that what reads the figures is neither contender's client.
 * <p>
 * The server is {@code 127.0.0.1:6379} unless the system property {@value #PROPERTY} (or
 * the environment variable {@code WORKQUEUE_BENCH_REDIS}) says {@code host:port}; JMH
 * passes the host JVM's {@code -D} options on to its forks. The server may be shared with
 * other work: every benchmark uses keys named after {@link #uniqueName}, deletes them
 * when it ends, and never flushes anything.
 */
final class RedisAdmin implements AutoCloseable {

	static final String PROPERTY = "workqueue.bench.redis";

	static final String HOST;

	static final int PORT;

	static {
		String target = System.getProperty(PROPERTY, System.getenv("WORKQUEUE_BENCH_REDIS"));
		if (target == null || target.isBlank()) {
			target = "127.0.0.1:6379";
		}
		int colon = target.lastIndexOf(':');
		HOST = (colon < 0) ? target : target.substring(0, colon);
		PORT = (colon < 0) ? 6379 : Integer.parseInt(target.substring(colon + 1));
	}

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	private RedisAdmin(Socket socket) throws IOException {
		this.socket = socket;
		this.in = new BufferedInputStream(socket.getInputStream());
		this.out = socket.getOutputStream();
	}

	/**
	 * Connects to the benchmarks' Redis.
	 * @return the connection
	 */
	static RedisAdmin connect() {
		try {
			Socket socket = new Socket();
			socket.connect(new InetSocketAddress(HOST, PORT), 5_000);
			socket.setSoTimeout(60_000);
			socket.setTcpNoDelay(true);
			return new RedisAdmin(socket);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(
					"no Redis at " + HOST + ":" + PORT + " (set -D" + PROPERTY + "=host:port): " + ex.getMessage(), ex);
		}
	}

	/**
	 * Returns a name no other run uses, for a queue and the keys under it:
	 * {@code wqbench-<what>-<12 hex digits>}.
	 * @param what what the name is for
	 * @return the name
	 */
	static String uniqueName(String what) {
		return "wqbench-" + what + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFF_FFFF_FFFFL);
	}

	/** The {@code host:port} of this connection as Redis sees it (CLIENT LIST's addr). */
	String clientAddress() {
		return this.socket.getLocalAddress().getHostAddress() + ":" + this.socket.getLocalPort();
	}

	/**
	 * Runs one command.
	 * @param args the command and its arguments
	 * @return its reply: {@link String}, {@link Long}, {@link List} or {@code null}
	 * @throws IllegalStateException on an error reply
	 */
	synchronized Object command(String... args) {
		try {
			ByteArrayOutputStream request = new ByteArrayOutputStream();
			request.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
			for (String arg : args) {
				byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
				request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
				request.write(bytes);
				request.write('\r');
				request.write('\n');
			}
			this.out.write(request.toByteArray());
			this.out.flush();
			return reply(this.in);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Redis " + HOST + ":" + PORT + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Returns the fields of one {@code INFO} section.
	 * @param section the section
	 * @return its {@code name:value} lines as a map
	 */
	Map<String, String> info(String section) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : ((String) command("INFO", section)).split("\r\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				fields.put(line.substring(0, colon), line.substring(colon + 1));
			}
		}
		return fields;
	}

	/**
	 * Returns the server's own CPU time since its start, system and user.
	 * @return the time in µs
	 */
	long cpuMicros() {
		Map<String, String> cpu = info("cpu");
		return Math.round((Double.parseDouble(cpu.get("used_cpu_sys")) + Double.parseDouble(cpu.get("used_cpu_user")))
				* 1_000_000);
	}

	/**
	 * Returns the server's total of command calls since its start, from
	 * {@code INFO commandstats}; commands run inside scripts count, each of them.
	 * @return the calls of every command, added up
	 */
	long commandCalls() {
		long calls = 0;
		for (String stats : info("commandstats").values()) {
			int start = stats.indexOf("calls=") + "calls=".length();
			int end = stats.indexOf(',', start);
			calls += Long.parseLong(stats.substring(start, (end < 0) ? stats.length() : end));
		}
		return calls;
	}

	/**
	 * {@code INFO memory}'s {@code used_memory}: every key of every user of the server.
	 */
	long usedMemory() {
		return Long.parseLong(info("memory").get("used_memory"));
	}

	/**
	 * Returns the keys whose names contain {@code name}, by {@code SCAN}.
	 * @param name a name from {@link #uniqueName}
	 * @return the keys
	 */
	List<String> keysContaining(String name) {
		List<String> keys = new ArrayList<>();
		String cursor = "0";
		do {
			List<?> reply = (List<?>) command("SCAN", cursor, "MATCH", "*" + name + "*", "COUNT", "1000");
			cursor = (String) reply.get(0);
			for (Object key : (List<?>) reply.get(1)) {
				keys.add((String) key);
			}
		}
		while (!"0".equals(cursor));
		return keys;
	}

	/**
	 * Returns the bytes {@code MEMORY USAGE ... SAMPLES 0} (every element counted) gives
	 * for the keys whose names contain {@code name}, added up.
	 * @param name a name from {@link #uniqueName}
	 * @return the bytes
	 */
	long memoryUsage(String name) {
		long bytes = 0;
		for (String key : keysContaining(name)) {
			Object usage = command("MEMORY", "USAGE", key, "SAMPLES", "0");
			bytes += (usage == null) ? 0 : (Long) usage;
		}
		return bytes;
	}

	/**
	 * Deletes the keys whose names contain {@code name}.
	 * @param name a name from {@link #uniqueName}
	 * @return how many were deleted
	 */
	int deleteKeysContaining(String name) {
		List<String> keys = keysContaining(name);
		for (int from = 0; from < keys.size(); from += 100) {
			List<String> chunk = keys.subList(from, Math.min(keys.size(), from + 100));
			List<String> args = new ArrayList<>(chunk.size() + 1);
			args.add("UNLINK");
			args.addAll(chunk);
			command(args.toArray(new String[0]));
		}
		return keys.size();
	}

	/**
	 * Returns the addresses ({@code CLIENT LIST}'s addr) of the connections named
	 * {@code clientName}.
	 * @param clientName the name the contender gave its connections
	 * @return their addresses
	 */
	Set<String> clientAddresses(String clientName) {
		Set<String> addresses = new HashSet<>();
		for (String line : ((String) command("CLIENT", "LIST")).split("\n")) {
			Map<String, String> fields = new HashMap<>();
			for (String field : line.trim().split(" ")) {
				int equals = field.indexOf('=');
				if (equals > 0) {
					fields.put(field.substring(0, equals), field.substring(equals + 1));
				}
			}
			if (clientName.equals(fields.get("name"))) {
				addresses.add(fields.get("addr"));
			}
		}
		return addresses;
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// Nothing to do.
		}
	}

	static Object reply(InputStream in) throws IOException {
		int type = in.read();
		String line = line(in);
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new IllegalStateException("Redis " + HOST + ":" + PORT + ": " + line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] bytes = in.readNBytes(length + 2);
				return new String(bytes, 0, length, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					items.add(reply(in));
				}
				return items;
			}
			default:
				throw new IOException("Redis " + HOST + ":" + PORT + ": unexpected reply type " + type);
		}
	}

	/**
	 * Reads one line up to CRLF, without it; an empty string at the end of the stream.
	 */
	static String line(InputStream in) throws IOException {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
		for (int b = in.read(); b != -1; b = in.read()) {
			if (b == '\r') {
				in.read();
				break;
			}
			bytes.write(b);
		}
		return bytes.toString(StandardCharsets.UTF_8);
	}

}
