package dev.workqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisURI;

/**
 * Finds a Redis for the tests: the one on {@code 127.0.0.1:6379} if it answers, else one
 * started from {@code redis-server} on a free loopback port (stopped when the JVM exits).
 * Tests that need a server of their own (restarts, persistence, cluster) start one with
 * {@link #start}. No mocks, no containers.
 */
final class RedisServers {

	/** Set (or env {@code WORKQUEUE_REDIS_REQUIRED=true}) to fail instead of skipping. */
	static final String REQUIRED_PROPERTY = "workqueue.test.redis.required";

	private static RedisURI shared;

	private static boolean looked;

	private RedisServers() {
	}

	static boolean required() {
		return Boolean.getBoolean(REQUIRED_PROPERTY)
				|| "true".equalsIgnoreCase(System.getenv("WORKQUEUE_REDIS_REQUIRED"));
	}

	/** The shared server for this test run, or {@code null} when there is none. */
	static synchronized RedisURI shared() {
		if (!looked) {
			looked = true;
			if (answers(6379)) {
				shared = RedisURI.create("redis://127.0.0.1:6379");
			}
			else if (hasRedisServer()) {
				Server server = start();
				Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
				shared = server.uri();
			}
		}
		return shared;
	}

	/**
	 * Skips the calling test, with one line on standard error, when {@code redis-server}
	 * is not on the PATH (tests that start their own server need it), or fails it when
	 * the Redis tests are required.
	 */
	static void assumeRedisServer() {
		if (hasRedisServer()) {
			return;
		}
		if (required()) {
			throw new IllegalStateException("redis-server is not on the PATH, and the Redis tests are required");
		}
		System.err.println("*** SKIPPING: redis-server is not on the PATH ***");
		org.junit.jupiter.api.Assumptions.abort("redis-server is not on the PATH");
	}

	static boolean hasRedisServer() {
		try {
			Process probe = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true).start();
			probe.getInputStream().readAllBytes();
			return probe.waitFor() == 0;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Starts a private {@code redis-server} on a free loopback port.
	 * @param extraArgs more {@code redis-server} arguments, such as
	 * {@code --appendonly yes}
	 * @return the running server
	 */
	static Server start(String... extraArgs) {
		try {
			Path dir = Files.createTempDirectory("workqueue-redis-test");
			Server server = new Server(freePort(), dir, List.of(extraArgs));
			server.startProcess();
			return server;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start redis-server", ex);
		}
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/** Whether a Redis on {@code port} of the loopback answers PING. */
	static boolean answers(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] reply = new byte[7];
			int read = in.readNBytes(reply, 0, 7);
			return read >= 5 && new String(reply, 0, 5, StandardCharsets.US_ASCII).equals("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** A {@code redis-server} process of the tests' own. */
	static final class Server {

		private final int port;

		private final Path dir;

		private final List<String> extraArgs;

		private Process process;

		Server(int port, Path dir, List<String> extraArgs) {
			this.port = port;
			this.dir = dir;
			this.extraArgs = extraArgs;
		}

		int port() {
			return this.port;
		}

		RedisURI uri() {
			return RedisURI.create("redis://127.0.0.1:" + this.port);
		}

		Path dir() {
			return this.dir;
		}

		synchronized void startProcess() throws IOException {
			List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(this.port),
					"--bind", "127.0.0.1", "--dir", this.dir.toString(), "--save", ""));
			command.addAll(this.extraArgs);
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.dir.resolve("redis.log").toFile())
				.start();
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (!answers(this.port)) {
				if (System.nanoTime() > deadline || !this.process.isAlive()) {
					throw new IllegalStateException("redis-server did not start on port " + this.port + ": "
							+ Files.readString(this.dir.resolve("redis.log")));
				}
				Thread.onSpinWait();
			}
		}

		/**
		 * Stops the server at once (SIGKILL: nothing is flushed beyond what it wrote).
		 */
		synchronized void kill() {
			if (this.process != null) {
				this.process.destroyForcibly();
				waitFor();
			}
		}

		/** Stops the server as a service manager would (SIGTERM). */
		synchronized void stop() {
			if (this.process != null) {
				this.process.destroy();
				waitFor();
			}
		}

		void restart() throws IOException {
			stop();
			startProcess();
		}

		private void waitFor() {
			try {
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
