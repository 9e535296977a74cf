package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.kubernetes.client.extended.workqueue.ratelimiter.DefaultControllerRateLimiter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;

/**
 * W5: one thread calls {@code when(item)} cycling over 100,000 items, on the per-item
 * exponential limiter (5 ms base, 1000 s cap) and on the default controller limiter (the
 * larger of that and a 10 qps, burst 100 token bucket), ours beside client-java's.
 * <p>
 * Every call counts a failure, as a controller's {@code addRateLimited} does, so after a
 * few rounds each item sits at the cap and the bucket runs ever deeper into debt: both
 * limiters see exactly the same sequence of calls.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@State(Scope.Thread)
public class RateLimiterBenchmark {

	private static final int ITEMS = 100_000;

	private static final Duration BASE_DELAY = Duration.ofMillis(5);

	private static final Duration MAX_DELAY = Duration.ofSeconds(1000);

	private final String[] keys = Keys.distinct(ITEMS);

	private int next;

	private RateLimiter<String> oursExponential;

	private io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter<String> clientJavaExponential;

	private RateLimiter<String> oursDefault;

	private io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter<String> clientJavaDefault;

	@Setup(Level.Trial)
	public void open() {
		this.oursExponential = new ItemExponentialFailureRateLimiter<>(BASE_DELAY, MAX_DELAY);
		this.clientJavaExponential = new io.kubernetes.client.extended.workqueue.ratelimiter.ItemExponentialFailureRateLimiter<>(
				BASE_DELAY, MAX_DELAY);
		this.oursDefault = RateLimiters.defaultControllerRateLimiter();
		this.clientJavaDefault = new DefaultControllerRateLimiter<>();
	}

	@Benchmark
	public Duration exponential_ours() {
		return this.oursExponential.when(nextKey());
	}

	@Benchmark
	public Duration exponential_clientJava() {
		return this.clientJavaExponential.when(nextKey());
	}

	@Benchmark
	public Duration defaultController_ours() {
		return this.oursDefault.when(nextKey());
	}

	@Benchmark
	public Duration defaultController_clientJava() {
		return this.clientJavaDefault.when(nextKey());
	}

	private String nextKey() {
		String key = this.keys[this.next];
		if (++this.next == ITEMS) {
			this.next = 0;
		}
		return key;
	}

}
