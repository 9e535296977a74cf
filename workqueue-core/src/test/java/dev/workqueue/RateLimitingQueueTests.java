package dev.workqueue;

import java.time.Duration;

import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static dev.workqueue.WorkQueueTests.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The rate-limiting queue: {@code addRateLimited} is {@code addAfter} with the limiter's
 * delay, {@code forget} and {@code numRequeues} go to the limiter.
 */
class RateLimitingQueueTests {

	private final FakeClock clock = new FakeClock();

	private final FixedDelayRateLimiter<Object> limiter = new FixedDelayRateLimiter<>(Duration.ofSeconds(1));

	private RateLimitingQueue<String> queue(RateLimiter<? super String> limiter) {
		return WorkQueues.<String>builder().clock(this.clock).buildRateLimitingQueue(limiter);
	}

	@Test
	void addRateLimitedWaitsForTheLimitersDelay() throws Exception {
		try (RateLimitingQueue<String> queue = queue(this.limiter)) {
			queue.addRateLimited("a");
			this.clock.step(Duration.ofMillis(999));
			assertThat(queue.size()).isZero();
			this.clock.step(Duration.ofMillis(1));
			assertThat(queue.size()).isOne();
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		}
	}

	@Test
	void addRateLimitedWithAZeroDelayAddsAtOnce() {
		try (RateLimitingQueue<String> queue = queue(new FixedDelayRateLimiter<>(Duration.ZERO))) {
			queue.addRateLimited("a");
			assertThat(queue.size()).isOne();
			assertThat(queue.stats().retries()).isOne();
		}
	}

	@Test
	void forgetAndNumRequeuesGoToTheLimiter() {
		try (RateLimitingQueue<String> queue = queue(this.limiter)) {
			assertThat(queue.numRequeues("a")).isZero();
			queue.addRateLimited("a");
			queue.addRateLimited("a");
			queue.addRateLimited("b");
			assertThat(queue.numRequeues("a")).isEqualTo(2);
			assertThat(queue.numRequeues("b")).isOne();
			queue.forget("a");
			assertThat(queue.numRequeues("a")).isZero();
			assertThat(queue.numRequeues("b")).isOne();
			assertThat(queue.stats().retries()).isEqualTo(3);
		}
	}

	@Test
	void forgetLeavesTheQueueUnchanged() {
		try (RateLimitingQueue<String> queue = queue(this.limiter)) {
			queue.add("a");
			queue.addRateLimited("b");
			queue.forget("a");
			queue.forget("b");
			assertThat(queue.size()).isOne();
			Await.until(() -> queue.stats().waiting() == 1);
		}
	}

	@Test
	void addRateLimitedAfterShutDownIsIgnoredWithoutAskingTheLimiter() {
		RateLimitingQueue<String> queue = queue(this.limiter);
		queue.shutDown();
		queue.addRateLimited("a");
		assertThat(queue.numRequeues("a")).isZero();
		assertThat(queue.stats().retries()).isZero();
		assertThat(queue.size()).isZero();
	}

	@Test
	void exponentialBackoffDelaysEachRequeueTwiceAsLong() throws Exception {
		try (RateLimitingQueue<String> queue = queue(
				new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(10), Duration.ofSeconds(1)))) {
			long[] expectedWaitsMillis = { 10, 20, 40, 80 };
			for (long waitMillis : expectedWaitsMillis) {
				queue.addRateLimited("a");
				this.clock.step(Duration.ofMillis(waitMillis - 1));
				assertThat(queue.size()).as("before %d ms", waitMillis).isZero();
				this.clock.step(Duration.ofMillis(1));
				assertThat(queue.size()).isOne();
				assertThat(drain(queue)).containsExactly("a");
			}
			assertThat(queue.numRequeues("a")).isEqualTo(4);
			queue.forget("a");
			assertThat(queue.numRequeues("a")).isZero();
		}
	}

	@Test
	void limiterTypedForASupertypeIsAccepted() {
		RateLimiter<CharSequence> forCharSequences = new FixedDelayRateLimiter<>(Duration.ZERO);
		try (RateLimitingQueue<String> queue = queue(forCharSequences)) {
			queue.addRateLimited("a");
			assertThat(queue.size()).isOne();
		}
	}

	@Test
	void nullIsRejectedNamingTheParameter() {
		try (RateLimitingQueue<String> queue = queue(this.limiter)) {
			assertThatNullPointerException().isThrownBy(() -> queue.addRateLimited(null)).withMessage("item");
			assertThatNullPointerException().isThrownBy(() -> queue.forget(null)).withMessage("item");
			assertThatNullPointerException().isThrownBy(() -> queue.numRequeues(null)).withMessage("item");
		}
		assertThat(this.limiter.trackedItems()).isZero();
	}

}
