package dev.workqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.WorkQueue;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.store.InspectionDriver;
import dev.workqueue.store.SharedStoreQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * What the previous release's dead letters become: the records of its dead-letter list,
 * moved into the given-up records by the first build of this release, and its builder's
 * {@code deadLetters} option, now a bound of the given-up records.
 */
@RequiresRedis
class RedisPreviousDeadLettersTests {

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private static InspectionDriver inspection(WorkQueue<?> queue) {
		return ((SharedStoreQueue<?, ?>) queue.capability(SharedWorkQueue.class).orElseThrow()).driver().inspection();
	}

	/** Pushes records onto the queue's dead-letter list as the previous release did. */
	private void deadLetters(String... records) {
		this.redis.redis().rpush(this.redis.key("q", "dead"), records);
	}

	private WorkQueue<String> build(int keep) {
		return this.redis
			.track(this.redis.builder("q").clock(this.clock).givenUp(keep, Duration.ofDays(1)).buildQueue());
	}

	@Test
	void aBuildMovesThePreviousReleasesDeadLettersIntoTheGivenUpRecordsWithTheirReasons() {
		deadLetters(
				"{\"payload\":\"a\",\"reason\":\"java.lang.IllegalArgumentException: bad \\\"a\\\"\",\"server\":"
						+ "\"10.0.0.1:6379\"}",
				"{\"payload\":\"b\",\"reason\":\"line one\\nline two\"}", "not json", "{\"reason\":\"no payload\"}");
		Instant now = Instant.EPOCH.plusNanos(this.redis.scriptMicros(this.clock) * 1000);
		InspectionDriver inspection = inspection(build(10));
		List<ItemView> givenUp = inspection.items(ItemState.GIVEN_UP, 0, 10);
		assertThat(givenUp).extracting(ItemView::text, ItemView::attempts, ItemView::holder, ItemView::reason)
			.containsExactlyInAnyOrder(tuple("a", 0, "10.0.0.1:6379", "java.lang.IllegalArgumentException: bad \"a\""),
					tuple("b", 0, "previous-release", "line one\nline two"));
		assertThat(givenUp).extracting(ItemView::at).containsOnly(now);
		assertThat(this.redis.redis().exists(this.redis.key("q", "dead"))).isZero();
		assertThat(this.redis.redis().pttl(this.redis.key("q", "given-up"))).isBetween(1L,
				Duration.ofDays(1).toMillis());
	}

	@Test
	void aSecondBuildChangesNothing() {
		deadLetters("{\"payload\":\"a\",\"reason\":\"bad\",\"server\":\"s:1\"}");
		build(10);
		Map<String, String> records = this.redis.redis().hgetall(this.redis.key("q", "given-up"));
		List<?> index = this.redis.redis().zrangeWithScores(this.redis.key("q", "given-up-at"), 0, -1);
		assertThat(records).containsOnlyKeys("a");
		this.clock.step(Duration.ofMinutes(1));
		build(10);
		assertThat(this.redis.redis().hgetall(this.redis.key("q", "given-up"))).isEqualTo(records);
		assertThat(this.redis.redis().zrangeWithScores(this.redis.key("q", "given-up-at"), 0, -1)).isEqualTo(index);
	}

	@Test
	void theMoveKeepsTheNewestDeadLettersWithinTheBound() {
		deadLetters("{\"payload\":\"a\",\"reason\":\"old\"}", "{\"payload\":\"b\",\"reason\":\"newer\"}",
				"{\"payload\":\"c\",\"reason\":\"newest\"}");
		assertThat(inspection(build(2)).items(ItemState.GIVEN_UP, 0, 10)).extracting(ItemView::text)
			.containsExactlyInAnyOrder("b", "c");
		assertThat(this.redis.redis().exists(this.redis.key("q", "dead"))).isZero();
	}

	@Test
	void aQueueThatKeepsNoGivenUpRecordsOnlyDeletesTheDeadLetters() {
		deadLetters("{\"payload\":\"a\",\"reason\":\"bad\"}");
		build(0);
		assertThat(this.redis.redis()
			.exists(this.redis.key("q", "dead"), this.redis.key("q", "given-up"), this.redis.key("q", "given-up-at")))
			.isZero();
	}

	@Test
	@SuppressWarnings("deprecation")
	void theDeprecatedDeadLettersOptionBoundsTheGivenUpRecords() {
		WorkQueue<String> queue = this.redis
			.track(this.redis.builder("q").clock(this.clock).deadLetters(2, Duration.ofHours(1)).buildQueue());
		InspectionDriver inspection = inspection(queue);
		for (String item : List.of("a", "b", "c")) {
			inspection.keepGivenUp(item, 1, "failed");
			this.clock.step(Duration.ofMillis(1));
		}
		assertThat(inspection.givenUpCount()).isEqualTo(2);
		this.clock.step(Duration.ofHours(1));
		assertThat(inspection.givenUpCount()).isZero();
	}

	@Test
	@SuppressWarnings("deprecation")
	void theDeprecatedDeadLettersOptionRefusesWhatItRefusedNamingItsArguments() {
		RedisWorkQueues.Builder<String> builder = this.redis.builder("q");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.deadLetters(0, Duration.ofDays(1)))
			.withMessageContaining("maxRecords");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.deadLetters(1_000_001, Duration.ofDays(1)))
			.withMessageContaining("maxRecords");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.deadLetters(1, Duration.ofMillis(999)))
			.withMessageContaining("timeToLive");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.deadLetters(1, Duration.ofDays(36_526)))
			.withMessageContaining("timeToLive");
	}

}
