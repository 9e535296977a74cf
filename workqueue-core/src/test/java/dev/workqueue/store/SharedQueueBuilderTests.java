package dev.workqueue.store;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spi.PriorityHandle;
import dev.workqueue.spi.TraceContextSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The shared part of the stores' queue builders, over a store whose handles record the
 * calls they get: the options' defaults and checks, the store's builder returned by each
 * option, and which handle each {@code build...} asks the store for.
 */
class SharedQueueBuilderTests {

	private static final RateLimiter<String> LIMITER = new ItemExponentialFailureRateLimiter<>(Duration.ofSeconds(2),
			Duration.ofMinutes(1));

	private final RecordingBuilder builder = new RecordingBuilder();

	@Test
	void optionsHaveTheirDefaults() {
		assertThat(this.builder.lease()).isEqualTo(Duration.ofSeconds(30));
		assertThat(this.builder.metrics()).isSameAs(WorkQueueMetrics.NOOP);
		assertThat(this.builder.traceContextSource()).isNull();
		assertThat(this.builder.starvationTimeout()).isNull();
	}

	@Test
	void everyOptionReturnsTheStoresBuilderAndIsKept() {
		WorkQueueMetrics metrics = new WorkQueueMetrics() {
		};
		TraceContextSource source = () -> "context";

		RecordingBuilder same = this.builder.lease(SharedQueueBuilder.MIN_LEASE)
			.metrics(metrics)
			.traceContextSource(source)
			.starvationTimeout(Duration.ZERO);

		assertThat(same).isSameAs(this.builder);
		assertThat(this.builder.lease()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.builder.metrics()).isSameAs(metrics);
		assertThat(this.builder.traceContextSource()).isSameAs(source);
		assertThat(this.builder.starvationTimeout()).isZero();
		assertThat(this.builder.traceContextSource(null).traceContextSource()).isNull();
	}

	@Test
	void badOptionsAreRefusedNamingThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.builder.lease(Duration.ofMillis(999)))
			.withMessage("lease must be at least PT1S, was PT0.999S");
		assertThatNullPointerException().isThrownBy(() -> this.builder.lease(null)).withMessage("lease");
		assertThatNullPointerException().isThrownBy(() -> this.builder.metrics(null)).withMessage("metrics");
		assertThatIllegalArgumentException().isThrownBy(() -> this.builder.starvationTimeout(Duration.ofMillis(-1)))
			.withMessage("starvationTimeout must not be negative, was PT-0.001S");
		assertThatNullPointerException().isThrownBy(() -> this.builder.starvationTimeout(null)).withMessage("timeout");
		assertThat(this.builder.lease()).as("unchanged by the refusals").isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void plainQueuesAreBuiltOnPlainHandles() {
		assertThat(this.builder.buildQueue()).isSameAs(this.builder.handles.get(0));
		assertThat(this.builder.buildDelayingQueue()).isSameAs(this.builder.handles.get(1));
		RateLimitingQueue<String> queue = this.builder.buildRateLimitingQueue(LIMITER);

		queue.addRateLimited("a");

		assertThat(this.builder.prioritized).containsExactly(false, false, false);
		assertThat(this.builder.calls).containsExactly("isShuttingDown[]", "addAfter[a, PT2S]");
	}

	@Test
	void aPriorityQueueIsBuiltOnAPriorityHandleAndSaysWhatItIs() {
		PriorityQueue<String> strict = this.builder.buildPriorityQueue(LIMITER);
		PriorityQueue<String> guarded = this.builder.starvationTimeout(Duration.ofMinutes(5))
			.buildPriorityQueue(LIMITER);

		guarded.add("a", 7);

		assertThat(this.builder.prioritized).containsExactly(true, true);
		assertThat(this.builder.calls).containsExactly("add[a, 7]");
		assertThat(strict).hasToString("TestPriorityQueue[orders, limited by " + LIMITER + "]");
		assertThat(guarded)
			.hasToString("TestPriorityQueue[orders, starvation timeout PT5M, limited by " + LIMITER + "]");
	}

	@Test
	void aMissingLimiterIsRefusedBeforeAHandleIsMade() {
		assertThatNullPointerException().isThrownBy(() -> this.builder.buildRateLimitingQueue(null))
			.withMessage("limiter");
		assertThatNullPointerException().isThrownBy(() -> this.builder.buildPriorityQueue(null)).withMessage("limiter");
		assertThat(this.builder.handles).isEmpty();
	}

	/**
	 * A store whose handles are named {@code orders} and record the calls they get; it
	 * keeps what it was asked for.
	 */
	private static final class RecordingBuilder extends SharedQueueBuilder<String, RecordingBuilder> {

		private final List<Boolean> prioritized = new ArrayList<>();

		private final List<PriorityHandle<String>> handles = new ArrayList<>();

		private final List<String> calls = new ArrayList<>();

		RecordingBuilder() {
			super("TestPriorityQueue");
		}

		@Override
		public SharedLimiterFactory<String> rateLimiters() {
			throw new UnsupportedOperationException("no limiters here");
		}

		@Override
		protected PriorityHandle<String> newHandle(boolean prioritized) {
			this.prioritized.add(prioritized);
			@SuppressWarnings("unchecked")
			PriorityHandle<String> handle = (PriorityHandle<String>) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { PriorityHandle.class }, (proxy, method, args) -> {
						if (method.getName().equals("name")) {
							return "orders";
						}
						this.calls.add(method.getName() + Arrays.toString((args != null) ? args : new Object[0]));
						return (method.getReturnType() == boolean.class) ? false : null;
					});
			this.handles.add(handle);
			return handle;
		}

	}

}
