package dev.workqueue.postgres;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

import dev.workqueue.ItemCodec;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * A token bucket in the {@code _limit} table, shared by every instance: one row for all
 * items, or one per item. {@code when} reserves a token as {@code golang.org/x/time/rate}
 * does (a reservation always succeeds and returns its wait), kept as a GCRA's theoretical
 * arrival time in the row's {@code at}: one upsert per call. {@code numRequeues} is
 * always 0; {@code forget} gives an item its fresh bucket back, and does nothing to the
 * shared one.
 * <p>
 * Time has microsecond resolution, so a rate above a million tokens per second acts as a
 * million; a wait is at most a hundred years.
 *
 * @param <T> the item type
 */
final class PostgresBucketRateLimiter<T> implements RateLimiter<T> {

	/** A hundred years in µs: the longest period, burst and wait. */
	private static final long MAX_MICROS = 36_525L * 86_400 * 1_000_000;

	private final LimitTable table;

	private final ItemCodec<T> codec;

	private final boolean perItem;

	private final double qps;

	private final int burst;

	private final long periodMicros;

	private final long toleranceMicros;

	PostgresBucketRateLimiter(LimitTable table, ItemCodec<T> codec, boolean perItem, double qps, int burst) {
		// Negated so that NaN is refused too.
		if (!(qps > 0) || Double.isInfinite(qps)) {
			throw new IllegalArgumentException("qps must be positive and finite, was " + qps);
		}
		if (burst < 1) {
			throw new IllegalArgumentException("burst must be at least 1, was " + burst);
		}
		this.table = table;
		this.codec = codec;
		this.perItem = perItem;
		this.qps = qps;
		this.burst = burst;
		this.periodMicros = (long) Math.max(1, Math.min(MAX_MICROS, Math.rint(1_000_000 / qps)));
		// A full bucket lets `burst` tokens go at once: the arrival time may run that far
		// ahead of now before anyone waits.
		this.toleranceMicros = (this.periodMicros > MAX_MICROS / burst) ? MAX_MICROS : this.periodMicros * burst;
	}

	@Override
	public Duration when(T item) {
		long waitMicros = this.table.reserve(kind(), key(item), this.periodMicros, this.toleranceMicros,
				this.toleranceMicros + MAX_MICROS);
		return Duration.of(waitMicros, ChronoUnit.MICROS);
	}

	@Override
	public void forget(T item) {
		String key = key(item);
		if (this.perItem) {
			this.table.delete(kind(), key, true);
		}
	}

	@Override
	public int numRequeues(T item) {
		Objects.requireNonNull(item, "item");
		return 0;
	}

	private String kind() {
		return this.perItem ? "item-bucket" : "bucket";
	}

	private String key(T item) {
		Objects.requireNonNull(item, "item");
		return this.perItem ? LimitTable.encode(this.codec, item) : "";
	}

	@Override
	public String toString() {
		return "PostgresBucketRateLimiter[qps=" + this.qps + ", burst=" + this.burst
				+ (this.perItem ? ", per item" : "") + " of " + this.table.describe() + "]";
	}

}
