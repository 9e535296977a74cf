package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The done scripts end many leases in one call, and the done-get scripts many leases and
 * then a get, in both layouts: each lease fenced by its token (a stale one in the group
 * changes nothing), an item added while it was processed queued again and the others
 * deleted, and a get's grant forgotten by the done of its first lease. Run on the shared
 * Redis, exactly as a handle sends them.
 */
@RequiresRedis
class RedisGroupedDoneTests {

	private static final String LEASE_MICROS = "30000000";

	private final RedisFixture redis = new RedisFixture();

	private final QueueKeys keys = QueueKeys.of(this.redis.prefix, "q");

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private <R> R run(LuaScript script, String... args) {
		return this.redis.runScript(this.keys, "", script, args);
	}

	@Test
	void aDoneOfSeveralEndsEachHeldLeaseQueuesTheDirtyOneAndLeavesTheStaleOne() {
		run(LuaScript.ADD, "a", "b", "c");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "3");
		run(LuaScript.ADD, "b");

		long ended = run(LuaScript.DONE, "a", "h:1", "b", "h:1.2", "c", "other:7");

		assertThat(ended).isEqualTo(2);
		assertThat(this.redis.leaseTokens(this.keys.leases())).containsExactly(Map.entry("c", "h:1.3"));
		assertThat(this.redis.redis().zrange(this.keys.processing(), 0, -1)).containsExactly("c");
		assertThat(this.redis.redis().lrange(this.keys.queue(), 0, -1)).as("the dirty one, queued again")
			.containsExactly("b");
		assertThat(this.redis.redis().hkeys(this.keys.dirty())).containsExactly("b");
	}

	@Test
	void aDoneOfStaleLeasesOnlyChangesNothing() {
		run(LuaScript.ADD, "a", "b");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "2");

		long ended = run(LuaScript.DONE, "a", "h:0", "b", "h:1");

		assertThat(ended).isZero();
		assertThat(this.redis.redis().hgetall(this.keys.leases())).containsOnlyKeys("a", "b");
		assertThat(this.redis.redis().zcard(this.keys.processing())).isEqualTo(2);
		assertThat(this.redis.redis().exists(this.keys.grants())).isOne();
	}

	@Test
	void theGrantOfAGetGoesWithTheDoneOfItsFirstLease() {
		run(LuaScript.ADD, "a", "b", "c");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "2");
		run(LuaScript.GET, LEASE_MICROS, "h:2", "1");

		run(LuaScript.DONE, "b", "h:1.2");
		assertThat(this.redis.redis().hkeys(this.keys.grants())).containsExactlyInAnyOrder("h:1", "h:2");
		run(LuaScript.DONE, "a", "h:1", "c", "h:2");
		assertThat(this.redis.redis().exists(this.keys.grants(), this.keys.leases(), this.keys.processing())).isZero();
	}

	@Test
	void aLeaseGivenTwiceInOneGroupEndsOnce() {
		run(LuaScript.ADD, "a");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "1");
		run(LuaScript.ADD, "a");
		run(LuaScript.PADD, "b", "1");
		run(LuaScript.PGET, LEASE_MICROS, "h:2", "1", "-1");
		run(LuaScript.PADD, "b", "1");

		assertThat((Long) run(LuaScript.DONE, "a", "h:1", "a", "h:1")).isOne();
		assertThat((Long) run(LuaScript.PDONE, "b", "h:2", "b", "h:2")).isOne();
		assertThat(this.redis.redis().lrange(this.keys.queue(), 0, -1)).containsExactly("a");
		assertThat(this.redis.redis().zcard(this.keys.ready())).isOne();
	}

	@Test
	void aDoneGetEndsTheGroupFirstThenLeasesTheDirtyItemBehindTheReadyOnes() {
		run(LuaScript.ADD, "a", "b", "c");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "2");
		run(LuaScript.ADD, "a");

		List<Object> reply = run(LuaScript.DONE_GET, LEASE_MICROS, "h:2", "2", "a", "h:1", "b", "other:7");

		assertThat(reply).hasSize(7);
		assertThat(reply.get(0)).as("leases ended").isEqualTo(1L);
		assertThat(List.of(reply.get(1), reply.get(4))).containsExactly("c", "a");
		assertThat(this.redis.leaseTokens(this.keys.leases()))
			.containsExactlyInAnyOrderEntriesOf(Map.of("b", "h:1.2", "c", "h:2", "a", "h:2.2"));
		assertThat(this.redis.redis().hkeys(this.keys.grants())).containsExactly("h:2");
		assertThat(this.redis.redis().exists(this.keys.queue(), this.keys.dirty())).isZero();
	}

	@Test
	void aPriorityDoneOfSeveralLinesUpTheDirtyOneAtItsAddsPriorityAndLeavesTheStaleOne() {
		run(LuaScript.PADD, "a", "5");
		run(LuaScript.PADD, "b", "3");
		run(LuaScript.PADD, "c", "1");
		run(LuaScript.PGET, LEASE_MICROS, "h:1", "2", "-1");
		run(LuaScript.PADD, "b", "9");

		long ended = run(LuaScript.PDONE, "a", "other:7", "b", "h:1.2");

		assertThat(ended).isOne();
		assertThat(this.redis.leaseTokens(this.keys.leases())).containsExactly(Map.entry("a", "h:1"));
		assertThat(this.redis.redis().zrange(this.keys.processing(), 0, -1)).containsExactly("a");
		List<Object> next = run(LuaScript.PGET, LEASE_MICROS, "h:2", "2", "-1");
		assertThat(List.of(next.get(0), next.get(2), next.get(4), next.get(6))).as("item, priority, item, priority")
			.containsExactly("b", 9L, "c", 1L);
		assertThat(this.redis.redis().hkeys(this.keys.priorities())).as("held priorities of the held leases")
			.containsExactlyInAnyOrder("ha", "hb", "hc");
	}

	@Test
	void aDoneOfMoreLeasesThanOneScriptUnpacksEndsThemAll() {
		// 4500 leases: the priority layout's done reads 9000 fields, more than Redis's
		// Lua
		// unpacks in one call (some 8000).
		int count = 4500;
		List<RedisLease> leases = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			run(LuaScript.PADD, "i" + i, "1");
		}
		for (int get = 0; get < count / 500; get++) {
			String token = "h:" + get;
			run(LuaScript.PGET, LEASE_MICROS, token, "500", "-1");
			for (int n = 1; n <= 500; n++) {
				leases.add(RedisLease.orphan("i" + (get * 500 + n - 1), LeaseTokens.nth(token, n)));
			}
		}
		RedisLink link = RedisLink.acquire(this.redis.client);
		try {
			QueueScripts scripts = new QueueScripts(link, "q", this.keys, QueueLayout.PRIORITY, Clock.system(), true,
					Duration.ofSeconds(10));
			new ReleaseScripts(scripts).done(leases);
		}
		finally {
			link.release();
		}

		assertThat(this.redis.redis().exists(this.keys.leases(), this.keys.processing(), this.keys.grants())).isZero();
	}

	@Test
	void aPriorityDoneGetEndsTheGroupAndForgetsTheirGrantThenLeases() {
		run(LuaScript.PADD, "a", "5");
		run(LuaScript.PADD, "b", "3");
		run(LuaScript.PADD, "c", "1");
		run(LuaScript.PGET, LEASE_MICROS, "h:1", "2", "-1");
		run(LuaScript.PADD, "a", "2");

		List<Object> reply = run(LuaScript.PDONE_GET, LEASE_MICROS, "h:2", "1", "-1", "a", "h:1", "b", "h:1.2");

		assertThat(reply.get(0)).as("leases ended").isEqualTo(2L);
		assertThat(List.of(reply.get(1), reply.get(3))).as("the dirty one, ahead of c by its add's priority")
			.containsExactly("a", 2L);
		assertThat(this.redis.leaseTokens(this.keys.leases())).containsExactly(Map.entry("a", "h:2"));
		assertThat(this.redis.redis().hkeys(this.keys.grants())).containsExactly("h:2");
		assertThat(this.redis.redis().zcard(this.keys.ready())).isOne();
	}

}
