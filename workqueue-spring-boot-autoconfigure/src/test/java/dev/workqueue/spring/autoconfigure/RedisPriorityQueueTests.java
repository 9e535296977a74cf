package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
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

import dev.workqueue.PriorityQueue;
import dev.workqueue.spring.RedisWorkQueueCustomizer;
import dev.workqueue.spring.WorkQueueRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for a queue with {@code priority.enabled} on the redis backend: its bean is
 * workqueue-redis's {@link PriorityQueue}, customized as every redis queue. Needs the
 * {@link LocalRedis}, and the Redis priority queue
 * ({@code RedisWorkQueues.Builder.buildPriorityQueue}).
 */
class RedisPriorityQueueTests {

	private static final String PREFIX = LocalRedis.uniquePrefix();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, WorkQueueAutoConfiguration.class))
		.withUserConfiguration(RecordingRedisCustomizerConfiguration.class)
		.withPropertyValues("spring.data.redis.host=" + LocalRedis.HOST, "workqueue.redis.key-prefix=" + PREFIX,
				"workqueue.queues.alerts.backend=redis", "workqueue.queues.alerts.priority.enabled=true",
				"workqueue.queues.alerts.priority.starvation-timeout=1h");

	@BeforeAll
	static void redisAnswers() {
		LocalRedis.assumeAnswers();
	}

	@AfterEach
	void deleteKeys() {
		LocalRedis.deleteKeys(PREFIX);
	}

	@Test
	void queueWithPriorityEnabledIsARedisPriorityQueueCustomizedAsTheOthers() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("alerts")).isInstanceOf(PriorityQueue.class);
			assertThat(context.getBean(WorkQueueDetails.class).backend("alerts")).isEqualTo("redis");
			assertThat(context.getBean(RecordingRedisCustomizerConfiguration.class).customized)
				.containsExactly("alerts");
			PriorityQueue<String> alerts = (PriorityQueue<String>) context.getBean(WorkQueueRegistry.class)
				.<String>get("alerts");
			alerts.add("low", -1);
			alerts.add("high", 1);
			assertThat(alerts.pollWithPriority(Duration.ofSeconds(1)))
				.isEqualTo(new PriorityQueue.Prioritized<>("high", 1));
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingRedisCustomizerConfiguration {

		final List<String> customized = new CopyOnWriteArrayList<>();

		@Bean
		RedisWorkQueueCustomizer recordingRedisCustomizer() {
			return (name, builder) -> this.customized.add(name);
		}

	}

}
