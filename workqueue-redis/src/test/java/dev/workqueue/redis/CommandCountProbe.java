package dev.workqueue.redis;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.time.FakeClock;

/** Not committed: counts the commands per item of add + get + done. */
@RequiresRedis
class CommandCountProbe {

	private static final int N = 1000;

	@Test
	void count() throws Exception {
		try (RedisFixture redis = new RedisFixture()) {
			FakeClock clock = new FakeClock();
			DelayingQueue<String> plain = redis.track(redis.builder("plain").clock(clock).buildDelayingQueue());
			PriorityQueue<String> prio = redis.track(redis.builder("prio")
				.clock(clock)
				.buildPriorityQueue(
						new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
			for (String pattern : new String[] { "batch", "interleaved" }) {
				for (int round = 0; round < 2; round++) {
					boolean p = round == 1;
					redis.redis().configResetstat();
					if (pattern.equals("batch")) {
						for (int i = 0; i < N; i++) {
							if (p) {
								prio.add("i" + i, i % 7);
							}
							else {
								plain.add("i" + i);
							}
						}
						for (int i = 0; i < N; i++) {
							String item = p ? prio.poll(Duration.ZERO) : plain.poll(Duration.ZERO);
							(p ? prio : plain).done(item);
						}
					}
					else {
						for (int i = 0; i < N; i++) {
							if (p) {
								prio.add("i" + i, i % 7);
							}
							else {
								plain.add("i" + i);
							}
							String item = p ? prio.poll(Duration.ZERO) : plain.poll(Duration.ZERO);
							(p ? prio : plain).done(item);
						}
					}
					String info = redis.redis().info("commandstats");
					System.out.println(
							"RAW " + info.lines().filter((l) -> l.contains("evalsha") || l.contains("hget")).toList());
					Map<String, Long> calls = new TreeMap<>();
					long total = 0;
					for (String line : info.split("\r?\n")) {
						if (line.startsWith("cmdstat_")) {
							String name = line.substring(8, line.indexOf(':'));
							long n = Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"));
							calls.put(name, n);
							if (!name.equals("evalsha") && !name.equals("eval") && !name.equals("config")
									&& !name.equals("info")) {
								total += n;
							}
						}
					}
					System.out.println("PROBE " + pattern + " " + (p ? "priority" : "plain") + ": " + calls
							+ " inside-scripts per item=" + (total / (double) N));
				}
			}
		}
	}

}
