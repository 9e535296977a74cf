package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.workqueue.ratelimit.MaxOfRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.WithMaxWaitRateLimiter;

/**
 * The limiters a backend makes, each as client-go's of that name: in this JVM for the
 * memory backend, shared through Redis for the redis backend. {@link #build} turns a
 * queue's {@code rate-limiter} properties into one limiter with whichever kit, so both
 * backends read the YAML alike.
 */
interface RateLimiterKit {

	RateLimiter<Object> exponential(Duration baseDelay, Duration maxDelay, double jitter);

	RateLimiter<Object> fastSlow(Duration fastDelay, Duration slowDelay, int maxFastAttempts);

	RateLimiter<Object> bucket(double qps, int burst);

	RateLimiter<Object> itemBucket(double qps, int burst);

	RateLimiter<Object> defaultController();

	/**
	 * Builds the limiter a {@code rate-limiter} section describes: one limiter per
	 * subsection present, the longest of their delays when several, capped by
	 * {@code max-wait}; the default controller limiter when there is no section.
	 * @param properties the section, or {@code null}
	 * @return the limiter
	 */
	@SuppressWarnings("unchecked")
	default RateLimiter<Object> build(WorkQueueProperties.@Nullable RateLimit properties) {
		if (properties == null) {
			return defaultController();
		}
		List<RateLimiter<Object>> limiters = new ArrayList<>();
		WorkQueueProperties.Exponential exponential = properties.getExponential();
		if (exponential != null) {
			limiters.add(exponential(exponential.getBaseDelay(), exponential.getMaxDelay(), exponential.getJitter()));
		}
		WorkQueueProperties.FastSlow fastSlow = properties.getFastSlow();
		if (fastSlow != null) {
			limiters.add(fastSlow(fastSlow.getFastDelay(), fastSlow.getSlowDelay(), fastSlow.getMaxFastAttempts()));
		}
		WorkQueueProperties.Bucket bucket = properties.getBucket();
		if (bucket != null) {
			limiters.add(bucket(bucket.getQps(), bucket.getBurst()));
		}
		WorkQueueProperties.Bucket itemBucket = properties.getItemBucket();
		if (itemBucket != null) {
			limiters.add(itemBucket(itemBucket.getQps(), itemBucket.getBurst()));
		}
		RateLimiter<Object> limiter = switch (limiters.size()) {
			case 0 -> defaultController();
			case 1 -> limiters.get(0);
			default -> new MaxOfRateLimiter<>((RateLimiter<Object>[]) limiters.toArray(new RateLimiter<?>[0]));
		};
		return (properties.getMaxWait() != null) ? new WithMaxWaitRateLimiter<>(limiter, properties.getMaxWait())
				: limiter;
	}

}
