package dev.workqueue.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the commands Redis receives, by the connection that sent them, through
 * {@code MONITOR}: the only way on Redis 7.0 (whose {@code CLIENT LIST} has no command
 * count) to tell one client's commands from the others' on a shared server.
 * <p>
 * A monitor line reads {@code +1700000000.123456 [0 127.0.0.1:54321] "EVALSHA" ...}; the
 * commands a script runs come as {@code [0 lua]} lines, counted under {@code "lua"}.
 */
final class RedisMonitor implements AutoCloseable {

	private final Socket socket;

	private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

	private final Thread reader;

	private RedisMonitor(Socket socket, InputStream in) {
		this.socket = socket;
		this.reader = new Thread(() -> read(in), "redis-monitor");
		this.reader.setDaemon(true);
	}

	/**
	 * Starts monitoring; returns once Redis has acknowledged, so that every later command
	 * is counted.
	 * @return the monitor
	 */
	static RedisMonitor start() {
		try {
			Socket socket = new Socket();
			socket.connect(new InetSocketAddress(RedisAdmin.HOST, RedisAdmin.PORT), 5_000);
			InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
			socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
			socket.getOutputStream().flush();
			Object ok = RedisAdmin.reply(in);
			if (!"OK".equals(ok)) {
				socket.close();
				throw new IllegalStateException("MONITOR answered " + ok);
			}
			RedisMonitor monitor = new RedisMonitor(socket, in);
			monitor.reader.start();
			return monitor;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** This monitoring connection's own address, to leave out. */
	String clientAddress() {
		return this.socket.getLocalAddress().getHostAddress() + ":" + this.socket.getLocalPort();
	}

	/**
	 * Returns the commands counted so far, by sender address ({@code "lua"} for those run
	 * by scripts).
	 * @return a copy of the counts
	 */
	Map<String, Long> counts() {
		Map<String, Long> copy = new HashMap<>();
		this.counts.forEach((address, count) -> copy.put(address, count.sum()));
		return copy;
	}

	private void read(InputStream in) {
		try {
			for (String line = RedisAdmin.line(in); !line.isEmpty(); line = RedisAdmin.line(in)) {
				int open = line.indexOf('[');
				int close = line.indexOf(']', open + 1);
				if (open < 0 || close < 0) {
					continue;
				}
				String source = line.substring(open + 1, close);
				String address = source.substring(source.indexOf(' ') + 1);
				this.counts.computeIfAbsent(address, (key) -> new LongAdder()).increment();
			}
		}
		catch (IOException ex) {
			// Closed.
		}
	}

	@Override
	public void close() {
		try {
			this.socket.close();
			this.reader.join(5_000);
		}
		catch (IOException ex) {
			// Nothing to do.
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
