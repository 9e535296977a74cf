package dev.workqueue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WaitingHeap}, single-threaded: ready-time order, one entry per item keeping the
 * earlier time, due at the ready time and not before.
 */
class WaitingHeapTests {

	private final WaitingHeap<String> heap = new WaitingHeap<>();

	@Test
	void itemIsDueAtItsReadyTimeAndNotBefore() {
		this.heap.offer(new WaitingEntry<>("a", 100));
		assertThat(this.heap.headReadyAtNanos()).isEqualTo(100);
		assertThat(this.heap.pollDue(99)).isNull();
		assertThat(this.heap.pollDue(100)).isEqualTo("a");
		assertThat(this.heap.pollDue(Long.MAX_VALUE)).isNull();
		assertThat(this.heap.headReadyAtNanos()).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void offerOfAWaitingItemKeepsTheEarlierTime() {
		assertThat(this.heap.offer(new WaitingEntry<>("a", 300))).isTrue();
		this.heap.offer(new WaitingEntry<>("b", 200));
		assertThat(this.heap.offer(new WaitingEntry<>("a", 400))).isFalse();
		assertThat(this.heap.offer(new WaitingEntry<>("a", 100))).isFalse();
		assertThat(this.heap.size()).isEqualTo(2);
		assertThat(this.heap.indexSize()).isEqualTo(2);
		assertThat(this.heap.pollDue(1000)).isEqualTo("a");
		assertThat(this.heap.pollDue(1000)).isEqualTo("b");
		assertThat(this.heap.pollDue(1000)).isNull();
	}

	@Test
	void randomOffersComeOutInReadyTimeOrderOncePerItem() {
		Random random = new Random(7);
		Map<String, Long> earliest = new HashMap<>();
		for (int i = 0; i < 50_000; i++) {
			String item = "item" + random.nextInt(20_000);
			long readyAt = random.nextInt(1_000_000);
			earliest.merge(item, readyAt, Math::min);
			this.heap.offer(new WaitingEntry<>(item, readyAt));
		}
		assertThat(this.heap.size()).isEqualTo(earliest.size());
		List<String> out = new ArrayList<>();
		long previous = Long.MIN_VALUE;
		for (long now = 0; now <= 1_000_000; now += 10_000) {
			for (String item = this.heap.pollDue(now); item != null; item = this.heap.pollDue(now)) {
				long readyAt = earliest.get(item);
				assertThat(readyAt).isLessThanOrEqualTo(now).isGreaterThanOrEqualTo(previous);
				previous = readyAt;
				out.add(item);
			}
		}
		assertThat(out).doesNotHaveDuplicates().hasSize(earliest.size());
		assertThat(this.heap.size()).isZero();
		assertThat(this.heap.indexSize()).isZero();
	}

	@Test
	void clearDropsEverything() {
		this.heap.offer(new WaitingEntry<>("a", 1));
		this.heap.offer(new WaitingEntry<>("b", 2));
		this.heap.clear();
		assertThat(this.heap.size()).isZero();
		assertThat(this.heap.indexSize()).isZero();
		assertThat(this.heap.pollDue(Long.MAX_VALUE)).isNull();
	}

}
