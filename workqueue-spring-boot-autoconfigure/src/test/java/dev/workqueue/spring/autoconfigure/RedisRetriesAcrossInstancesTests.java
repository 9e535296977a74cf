package dev.workqueue.spring.autoconfigure;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.workqueue.ItemCodec;
import dev.workqueue.redis.RedisRateLimiters;

/**
 * {@link RetriesAcrossInstancesContract} on Redis: the instances share one key prefix.
 * Needs the {@link LocalRedis}.
 */
class RedisRetriesAcrossInstancesTests extends RetriesAcrossInstancesContract {

	private static final String PREFIX = LocalRedis.uniquePrefix();

	@BeforeAll
	static void redisAnswers() {
		LocalRedis.assumeAnswers();
	}

	@AfterEach
	void deleteKeys() {
		LocalRedis.deleteKeys(PREFIX);
	}

	@Override
	protected ApplicationContextRunner onStore(ApplicationContextRunner runner) {
		return runner
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, WorkQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + LocalRedis.HOST, "workqueue.redis.key-prefix=" + PREFIX,
					"workqueue.queues.orders.backend=redis");
	}

	@Override
	protected int failures(String item) {
		RedisClient client = RedisClient.create("redis://" + LocalRedis.HOST + ":" + LocalRedis.PORT);
		try {
			return RedisRateLimiters.builder(client, ItemCodec.strings())
				.name("orders")
				.keyPrefix(PREFIX)
				.attempts()
				.failures(item);
		}
		finally {
			client.shutdown();
		}
	}

}
