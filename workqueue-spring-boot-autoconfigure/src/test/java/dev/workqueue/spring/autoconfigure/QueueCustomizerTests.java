package dev.workqueue.spring.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spring.RedisWorkQueueCustomizer;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.spring.WorkQueueRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each backend's customizers: {@link WorkQueueCustomizer} for every memory queue the
 * starter builds, {@link RedisWorkQueueCustomizer} for every redis one, in order; neither
 * for a queue bean the application defines. Needs the {@link LocalRedis}.
 */
class QueueCustomizerTests {

	private static final String PREFIX = LocalRedis.uniquePrefix();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, WorkQueueAutoConfiguration.class))
		.withUserConfiguration(Customizers.class)
		.withPropertyValues("spring.data.redis.host=" + LocalRedis.HOST, "workqueue.redis.key-prefix=" + PREFIX,
				"workqueue.queues.local.concurrency=1", "workqueue.queues.orders.backend=redis",
				"workqueue.queues.invoices.backend=redis", "workqueue.queues.own.backend=redis");

	@BeforeAll
	static void redisAnswers() {
		LocalRedis.assumeAnswers();
	}

	@AfterEach
	void deleteKeys() {
		LocalRedis.deleteKeys(PREFIX);
	}

	@Test
	void eachBackendCallsItsOwnCustomizersInOrderForTheQueuesTheStarterBuilds() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			Customizers customizers = context.getBean(Customizers.class);
			assertThat(customizers.memory).containsExactly("local");
			assertThat(customizers.redis).containsExactlyInAnyOrder("first:orders", "second:orders", "first:invoices",
					"second:invoices");
			assertThat(customizers.redis).containsSubsequence("first:orders", "second:orders")
				.containsSubsequence("first:invoices", "second:invoices");
		});
	}

	@Test
	void aRedisCustomizerRunsAfterTheStarterSetTheKeyPrefixAndBeforeTheQueueIsBuilt() {
		this.contextRunner.run((context) -> {
			context.getBean(WorkQueueRegistry.class).<String>get("orders").add("a");
			// The second customizer moves the queue under a prefix of its own.
			List<String> customKeys = LocalRedis.call((redis) -> redis.keys(PREFIX + "custom:{orders}*"));
			List<String> starterKeys = LocalRedis.call((redis) -> redis.keys(PREFIX + "{orders}*"));
			assertThat(customKeys).isNotEmpty();
			assertThat(starterKeys).isEmpty();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Customizers {

		final List<String> memory = new CopyOnWriteArrayList<>();

		final List<String> redis = new CopyOnWriteArrayList<>();

		@Bean
		WorkQueueCustomizer memoryCustomizer() {
			return (name, builder) -> this.memory.add(name);
		}

		@Bean
		@Order(2)
		RedisWorkQueueCustomizer secondRedisCustomizer() {
			return (name, builder) -> {
				this.redis.add("second:" + name);
				builder.keyPrefix(PREFIX + "custom:");
			};
		}

		@Bean
		@Order(1)
		RedisWorkQueueCustomizer firstRedisCustomizer() {
			return (name, builder) -> this.redis.add("first:" + name);
		}

		@Bean
		RateLimitingQueue<String> own() {
			return WorkQueues.<String>builder()
				.name("own")
				.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());
		}

	}

}
