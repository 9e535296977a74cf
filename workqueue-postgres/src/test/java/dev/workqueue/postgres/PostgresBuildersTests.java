package dev.workqueue.postgres;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import dev.workqueue.ItemCodec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The queue and limiter builders before any statement: bad options are refused naming
 * them, alike on both builders, a missing name fails the build, and the limiters of a
 * queue builder start from its options as they are, apart from later changes. Needs no
 * database: nothing here connects.
 */
class PostgresBuildersTests {

	private final PGSimpleDataSource dataSource = new PGSimpleDataSource();

	private final PostgresWorkQueues.Builder<String> queue = PostgresWorkQueues.builder(this.dataSource,
			ItemCodec.strings());

	@Test
	void badOptionsAreRefusedNamingThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.lease(Duration.ofMillis(999)))
			.withMessage("lease must be at least PT1S, was PT0.999S");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.pollInterval(Duration.ofMillis(9)))
			.withMessage("pollInterval must be at least PT0.01S, was PT0.009S");
		assertThatNullPointerException().isThrownBy(() -> this.queue.pollInterval(null)).withMessage("pollInterval");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.name(""))
			.withMessage("name must not be empty");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.table("items; DROP TABLE x"))
			.withMessageContaining("table");
		assertThatNullPointerException().isThrownBy(() -> this.queue.listenConnection(null)).withMessage("connections");
		assertThatNullPointerException().isThrownBy(() -> PostgresWorkQueues.builder(null, ItemCodec.strings()))
			.withMessage("dataSource");
	}

	@Test
	void theLimitersBuilderChecksItsOptionsAsTheQueuesDoes() {
		PostgresRateLimiters.Builder<String> limiters = PostgresRateLimiters.builder(this.dataSource,
				ItemCodec.strings());
		assertThatIllegalArgumentException().isThrownBy(() -> limiters.name("")).withMessage("name must not be empty");
		assertThatIllegalArgumentException().isThrownBy(() -> limiters.table("items; DROP TABLE x"))
			.withMessageContaining("table");
		assertThatNullPointerException().isThrownBy(() -> limiters.callerTransaction(null)).withMessage("active");
		assertThatNullPointerException().isThrownBy(() -> limiters.workerDataSource(null)).withMessage("dataSource");
		assertThatNullPointerException().isThrownBy(() -> PostgresRateLimiters.builder(this.dataSource, null))
			.withMessage("codec");
	}

	@Test
	void aBuildWithoutANameFailsSayingWhyItIsRequired() {
		assertThatIllegalStateException().isThrownBy(this.queue::buildQueue)
			.withMessage("name is required: instances with the same table and name share the queue");
		assertThatIllegalStateException().isThrownBy(() -> this.queue.rateLimiters().bucket(1, 1))
			.withMessage("name is required: the limiters' rows carry the queue's name");
	}

	@Test
	void theLimitersStartFromTheQueuesOptionsAndThenGoTheirOwnWay() {
		PostgresRateLimiters.Builder<String> limiters = this.queue.name("orders").table("jobs.items").rateLimiters();
		this.queue.name("other").table("elsewhere");

		assertThat(limiters.bucket(1, 1))
			.hasToString("PostgresBucketRateLimiter[qps=1.0, burst=1 of queue 'orders' (table jobs.items_limit)]");
		assertThat(limiters.name("renamed").itemBucket(1, 1)).hasToString(
				"PostgresBucketRateLimiter[qps=1.0, burst=1, per item of queue 'renamed' (table jobs.items_limit)]");
		assertThat(this.queue.rateLimiters().bucket(1, 1))
			.hasToString("PostgresBucketRateLimiter[qps=1.0, burst=1 of queue 'other' (table elsewhere_limit)]");
	}

}
