package dev.workqueue.store;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.workqueue.store.ClockAnchors.StoreTimeRead;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

/**
 * The anchors of given clocks on a store's time, with a fake read of the store's time
 * whose round trips step a {@link FakeClock}: the quickest of the reads is kept and taken
 * as read halfway through, the first recorded anchor wins, and a failed anchoring records
 * nothing.
 */
class ClockAnchorsTests {

	private final FakeClock clock = new FakeClock();

	private final ClockAnchors anchors = new ClockAnchors();

	@Test
	void keepsTheQuickestReadTakenHalfwayThrough() throws Exception {
		this.clock.step(Duration.ofSeconds(10));
		long startMicros = this.clock.nanoTime() / 1000;
		// round trips of 3 ms, 1 ms and 2 ms; each answer is the store's time at the
		// read's midpoint plus 5 s, and the 1 ms one errs by 400 µs more
		SteppingRead read = new SteppingRead(this.clock, List.of(3_000L, 1_000L, 2_000L), 5_000_000L,
				List.of(0L, 400L, 0L));

		long offset = this.anchors.anchor(this.clock, read);

		assertThat(read.reads).isEqualTo(ClockAnchors.READS);
		assertThat(offset).isEqualTo(5_000_400L);
		assertThat(this.anchors.knownOffsetMicros(this.clock)).isEqualTo(5_000_400L);
		assertThat(this.clock.nanoTime() / 1000).isEqualTo(startMicros + 6_000);
	}

	@Test
	void aClockNotAnchoredHasNoKnownOffset() {
		assertThat(this.anchors.knownOffsetMicros(this.clock)).isNull();
	}

	@Test
	void theFirstRecordedAnchorWins() throws Exception {
		long first = this.anchors.anchor(this.clock, () -> 7_000_000L);

		long second = this.anchors.anchor(this.clock, () -> 9_000_000L);

		assertThat(first).isEqualTo(7_000_000L);
		assertThat(second).isEqualTo(first);
		assertThat(this.anchors.knownOffsetMicros(this.clock)).isEqualTo(first);
	}

	@Test
	void eachClockAndEachStoreHasItsOwnAnchor() throws Exception {
		FakeClock other = new FakeClock();
		other.step(Duration.ofSeconds(3));
		ClockAnchors otherStore = new ClockAnchors();

		this.anchors.anchor(this.clock, () -> 1_000_000L);
		this.anchors.anchor(other, () -> 1_000_000L);

		assertThat(this.anchors.knownOffsetMicros(this.clock)).isEqualTo(1_000_000L);
		assertThat(this.anchors.knownOffsetMicros(other)).isEqualTo(-2_000_000L);
		assertThat(otherStore.knownOffsetMicros(this.clock)).isNull();
	}

	@Test
	void aFailedReadRecordsNothing() throws Exception {
		StoreTimeRead<IOException> failing = () -> {
			throw new IOException("store down");
		};

		assertThatIOException().isThrownBy(() -> this.anchors.anchor(this.clock, failing)).withMessage("store down");
		assertThat(this.anchors.knownOffsetMicros(this.clock)).isNull();
		assertThat(this.anchors.anchor(this.clock, () -> 2_000_000L)).isEqualTo(2_000_000L);
	}

	/**
	 * A store's time read whose round trips step the clock: each answer is the clock's
	 * time at the read's midpoint plus an offset plus that read's error.
	 */
	private static final class SteppingRead implements StoreTimeRead<RuntimeException> {

		private final FakeClock clock;

		private final Deque<Long> roundTripMicros;

		private final long offsetMicros;

		private final Deque<Long> errorMicros;

		private int reads;

		SteppingRead(FakeClock clock, List<Long> roundTripMicros, long offsetMicros, List<Long> errorMicros) {
			this.clock = clock;
			this.roundTripMicros = new ArrayDeque<>(roundTripMicros);
			this.offsetMicros = offsetMicros;
			this.errorMicros = new ArrayDeque<>(errorMicros);
		}

		@Override
		public long storeMicros() {
			this.reads++;
			long roundTrip = this.roundTripMicros.removeFirst();
			this.clock.step(Duration.ofNanos(roundTrip * 500));
			long answer = this.clock.nanoTime() / 1000 + this.offsetMicros + this.errorMicros.removeFirst();
			this.clock.step(Duration.ofNanos(roundTrip * 500));
			return answer;
		}

	}

}
