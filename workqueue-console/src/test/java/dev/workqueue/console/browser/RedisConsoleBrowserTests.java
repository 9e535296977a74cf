package dev.workqueue.console.browser;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The console of a Redis queue shared by two instances, in a real browser. Needs the
 * Redis on {@code 127.0.0.1:6379} (skipped loudly without it, failed when
 * {@code WORKQUEUE_REDIS_REQUIRED=true}); deletes every key it made.
 */
class RedisConsoleBrowserTests extends ConsoleBrowserContract {

	private static final String PREFIX = "wq-console-test-" + UUID.randomUUID() + ":";

	private static List<ConsoleApp> apps = List.of();

	@BeforeAll
	static void startApps() {
		boolean answers = answers();
		if (!answers && "true".equalsIgnoreCase(System.getenv("WORKQUEUE_REDIS_REQUIRED"))) {
			throw new IllegalStateException("No Redis on 127.0.0.1:6379, and the Redis tests are required");
		}
		if (!answers) {
			System.err.println("*** SKIPPING THE CONSOLE'S REDIS BROWSER TESTS: no Redis on 127.0.0.1:6379 ***");
		}
		assumeThat(answers).as("Redis on 127.0.0.1:6379").isTrue();
		String[] properties = { "workqueue.console.read-only=false", "spring.data.redis.host=127.0.0.1",
				"workqueue.redis.key-prefix=" + PREFIX, "workqueue.queues.jobs.backend=redis" };
		apps = List.of(ConsoleApp.start(properties), ConsoleApp.start(properties));
	}

	@AfterAll
	static void stopAppsAndDeleteKeys() {
		apps.forEach(ConsoleApp::close);
		RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			List<String> keys = connection.sync().keys(PREFIX + "*");
			if (!keys.isEmpty()) {
				connection.sync().del(keys.toArray(String[]::new));
			}
		}
		finally {
			client.shutdown();
		}
	}

	private static boolean answers() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", 6379), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Override
	String backend() {
		return "redis";
	}

	@Override
	List<ConsoleApp> instances() {
		return apps;
	}

}
