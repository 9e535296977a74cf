package dev.workqueue.sample;

import java.util.List;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Profile;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * The outbox in Redis, with the {@code redis} profile: shared by every instance, like the
 * queues, and kept across restarts. Two lists per target, under the queues' key prefix:
 * {@code <prefix>outbox:{<target>}} (waiting) and
 * {@code <prefix>outbox:{<target>}:taken}; the hash tag keeps both on one Cluster node.
 * Taking moves the waiting list onto the end of the taken one in one script, atomic on
 * the server ({@code LMOVE}: Redis 6.2 or later).
 */
@Component
@Profile("redis")
public class RedisOutbox implements Outbox {

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> TAKE = RedisScript.of("""
			while redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT') do end
			return redis.call('LRANGE', KEYS[2], 0, -1)
			""", List.class);

	private static final RedisScript<Long> DROP = RedisScript.of("""
			local dropped = redis.call('LLEN', KEYS[1]) + redis.call('LLEN', KEYS[2])
			redis.call('DEL', KEYS[1], KEYS[2])
			return dropped
			""", Long.class);

	private final StringRedisTemplate redis;

	private final String keyPrefix;

	public RedisOutbox(StringRedisTemplate redis, @Value("${workqueue.redis.key-prefix:workqueue:}") String keyPrefix) {
		this.redis = redis;
		this.keyPrefix = keyPrefix + "outbox:";
	}

	@Override
	public int stage(String targetId, String payload) {
		Long waiting = this.redis.opsForList().rightPush(waitingKey(targetId), payload);
		return (waiting != null) ? Math.toIntExact(waiting) : 0;
	}

	@Override
	@SuppressWarnings("unchecked")
	public List<String> take(String targetId) {
		List<String> payloads = this.redis.execute(TAKE, keys(targetId));
		return (payloads != null) ? payloads : List.of();
	}

	@Override
	public void delivered(String targetId) {
		this.redis.delete(takenKey(targetId));
	}

	@Override
	public int drop(String targetId) {
		Long dropped = this.redis.execute(DROP, keys(targetId));
		return (dropped != null) ? Math.toIntExact(dropped) : 0;
	}

	private List<String> keys(String targetId) {
		return List.of(waitingKey(targetId), takenKey(targetId));
	}

	private String waitingKey(String targetId) {
		return this.keyPrefix + "{" + targetId + "}";
	}

	private String takenKey(String targetId) {
		return waitingKey(targetId) + ":taken";
	}

}
