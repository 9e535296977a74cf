package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.workqueue.ratelimit.MaxOfRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.WithMaxWaitRateLimiter;

/**
 * The limiters a backend makes, each as client-go's of that name: in this JVM for the
 * memory backend, shared through the backend's store for the others. {@link #build} turns
 * a queue's {@link RateLimiterSettings} into one limiter with whichever kit, so every
 * backend reads the YAML alike.
 */
interface RateLimiterKit {

	RateLimiter<Object> exponential(Duration baseDelay, Duration maxDelay, double jitter);

	RateLimiter<Object> fastSlow(Duration fastDelay, Duration slowDelay, int maxFastAttempts);

	RateLimiter<Object> bucket(double qps, int burst);

	RateLimiter<Object> itemBucket(double qps, int burst);

	RateLimiter<Object> defaultController();

	/**
	 * Builds the limiter {@code settings} describe: one limiter per section given, the
	 * longest of their delays when several, capped by {@code max-wait}; the default
	 * controller limiter when there is no section.
	 * @param settings the queue's rate limiter settings
	 * @return the limiter
	 */
	@SuppressWarnings("unchecked")
	default RateLimiter<Object> build(RateLimiterSettings settings) {
		List<RateLimiter<Object>> limiters = new ArrayList<>();
		RateLimiterSettings.Exponential exponential = settings.exponential();
		if (exponential != null) {
			limiters.add(exponential(exponential.baseDelay(), exponential.maxDelay(), exponential.jitter()));
		}
		RateLimiterSettings.FastSlow fastSlow = settings.fastSlow();
		if (fastSlow != null) {
			limiters.add(fastSlow(fastSlow.fastDelay(), fastSlow.slowDelay(), fastSlow.maxFastAttempts()));
		}
		RateLimiterSettings.Bucket bucket = settings.bucket();
		if (bucket != null) {
			limiters.add(bucket(bucket.qps(), bucket.burst()));
		}
		RateLimiterSettings.Bucket itemBucket = settings.itemBucket();
		if (itemBucket != null) {
			limiters.add(itemBucket(itemBucket.qps(), itemBucket.burst()));
		}
		RateLimiter<Object> limiter = switch (limiters.size()) {
			case 0 -> defaultController();
			case 1 -> limiters.get(0);
			default -> new MaxOfRateLimiter<>((RateLimiter<Object>[]) limiters.toArray(new RateLimiter<?>[0]));
		};
		return (settings.maxWait() != null) ? new WithMaxWaitRateLimiter<>(limiter, settings.maxWait()) : limiter;
	}

}
