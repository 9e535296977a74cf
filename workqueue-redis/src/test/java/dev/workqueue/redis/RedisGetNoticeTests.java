package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A get that moves items fallen due and leaves some of them ready tells every instance
 * (an 'r' notice): on a Redis Cluster, where no consumer waits on the wake list, the
 * notice is what wakes the consumers of the other instances. Both layouts, script by
 * script on the shared Redis, with the notices heard on the queue's channel.
 */
@RequiresRedis
class RedisGetNoticeTests {

	private static final String LEASE_MICROS = "30000000";

	private final RedisFixture redis = new RedisFixture();

	private final QueueKeys keys = QueueKeys.of(this.redis.prefix, "q");

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	@Test
	void aListGetThatLeavesItemsFallenDueReadyNoticesEveryInstance() throws Exception {
		List<String> notices = noticesOf(() -> {
			for (String item : List.of("a", "b", "c")) {
				this.redis.runScript(this.keys, "1000", LuaScript.ADD_AFTER, "500", item);
			}
			this.redis.runScript(this.keys, "2000", LuaScript.GET, LEASE_MICROS, "h:1", "1");
		});
		assertThat(notices).contains("r");
	}

	@Test
	void aPriorityGetThatLeavesItemsFallenDueReadyNoticesEveryInstance() throws Exception {
		List<String> notices = noticesOf(() -> {
			for (String item : List.of("a", "b", "c")) {
				this.redis.runScript(this.keys, "1000", LuaScript.PADD_AFTER, "500", item, "0");
			}
			this.redis.runScript(this.keys, "2000", LuaScript.PGET, LEASE_MICROS, "h:1", "1", "-1");
		});
		assertThat(notices).contains("r");
	}

	/**
	 * The notices published on the queue's channel while {@code scripts} run, once a
	 * marker published after them is heard.
	 */
	private List<String> noticesOf(Runnable scripts) throws Exception {
		BlockingQueue<String> heard = new LinkedBlockingQueue<>();
		try (StatefulRedisPubSubConnection<String, String> subscriber = this.redis.client.connectPubSub()) {
			subscriber.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					heard.add(message);
				}

			});
			subscriber.sync().subscribe(this.keys.channel());
			scripts.run();
			this.redis.redis().publish(this.keys.channel(), "end");
			List<String> notices = new ArrayList<>();
			while (true) {
				String notice = heard.poll(5, TimeUnit.SECONDS);
				assertThat(notice).as("the marker published after the scripts").isNotNull();
				if (notice.equals("end")) {
					return notices;
				}
				notices.add(notice);
			}
		}
	}

}
