package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import dev.workqueue.ratelimit.TokenBucket;

/**
 * One thread asks a token bucket for one token without waiting: our
 * {@link TokenBucket#allow()} beside the limiters a user would pick instead, Guava's
 * {@code RateLimiter.tryAcquire()} and Bucket4j's {@code tryConsume(1)} (its default
 * builder: lock-free, millisecond clock).
 * <p>
 * Two loads: {@code granted} (a billion tokens a second, burst 1,000: every call gets a
 * token) and {@code denied} (one token a second, burst 1: after the first, every call is
 * refused). Guava has no burst setting; its bursty limiter stores one second of tokens.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@State(Scope.Thread)
public class TokenBucketBenchmark {

	@Param({ "granted", "denied" })
	public String load;

	private TokenBucket ours;

	private com.google.common.util.concurrent.RateLimiter guava;

	private Bucket bucket4j;

	@Setup(Level.Trial)
	public void open() {
		boolean granted = "granted".equals(this.load);
		long ratePerSecond = granted ? 1_000_000_000L : 1;
		int burst = granted ? 1000 : 1;
		this.ours = new TokenBucket(ratePerSecond, burst);
		this.guava = com.google.common.util.concurrent.RateLimiter.create(ratePerSecond);
		this.bucket4j = Bucket.builder()
			.addLimit(Bandwidth.builder().capacity(burst).refillGreedy(ratePerSecond, Duration.ofSeconds(1)).build())
			.build();
	}

	@Benchmark
	public boolean ours() {
		return this.ours.allow();
	}

	@Benchmark
	public boolean guava() {
		return this.guava.tryAcquire();
	}

	@Benchmark
	public boolean bucket4j() {
		return this.bucket4j.tryConsume(1);
	}

}
