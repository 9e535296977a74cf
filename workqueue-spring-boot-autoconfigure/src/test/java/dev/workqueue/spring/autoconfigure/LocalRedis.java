package dev.workqueue.spring.autoconfigure;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The Redis on {@code 127.0.0.1:6379} that the redis backend's tests share with other
 * builds: each test class uses keys under a prefix of its own and deletes only those.
 * Tests are skipped loudly without it, and fail when
 * {@code WORKQUEUE_REDIS_REQUIRED=true}.
 */
final class LocalRedis {

	static final String HOST = "127.0.0.1";

	static final int PORT = 6379;

	private LocalRedis() {
	}

	/**
	 * Skips the calling test class unless the Redis answers.
	 */
	static void assumeAnswers() {
		boolean answers = answers();
		if (!answers && "true".equalsIgnoreCase(System.getenv("WORKQUEUE_REDIS_REQUIRED"))) {
			throw new IllegalStateException("No Redis on 127.0.0.1:6379, and the Redis tests are required");
		}
		if (!answers) {
			System.err.println("*** SKIPPING THE SPRING REDIS BACKEND TESTS: no Redis on 127.0.0.1:6379 ***");
		}
		assumeThat(answers).as("Redis on 127.0.0.1:6379").isTrue();
	}

	/**
	 * Returns a key prefix no other test uses.
	 * @return the prefix, ending with a colon
	 */
	static String uniquePrefix() {
		return "wq-spring-test-" + UUID.randomUUID() + ":";
	}

	/**
	 * Deletes the keys under {@code prefix}.
	 * @param prefix the prefix of a test
	 */
	static void deleteKeys(String prefix) {
		call((commands) -> {
			List<String> keys = commands.keys(prefix + "*");
			return keys.isEmpty() ? 0 : commands.del(keys.toArray(String[]::new));
		});
	}

	/**
	 * Counts the connections open under a client name.
	 * @param clientName the name given with {@code CLIENT SETNAME}
	 * @return how many connections carry it
	 */
	static long connectionsNamed(String clientName) {
		return call((commands) -> Arrays.stream(commands.clientList().split("\n"))
			.filter((line) -> line.contains(" name=" + clientName + " "))
			.count());
	}

	/**
	 * Runs {@code call} on a connection of its own.
	 * @param <T> the result type
	 * @param call what to run
	 * @return its result
	 */
	static <T> T call(Function<RedisCommands<String, String>, T> call) {
		RedisClient client = RedisClient.create("redis://" + HOST + ":" + PORT);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return call.apply(connection.sync());
		}
		finally {
			client.shutdown();
		}
	}

	private static boolean answers() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, PORT), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
