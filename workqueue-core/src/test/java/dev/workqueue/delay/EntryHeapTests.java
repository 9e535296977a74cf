package dev.workqueue.delay;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link EntryHeap}: a 4-ary heap with due times beside the entries, checked
 * against a sorted set through adds, removals, updates and polls at sizes where every
 * level of the heap is used.
 */
class EntryHeapTests {

	@Test
	void pollsInDueThenSequenceOrderThroughRandomRemovalsAndUpdates() {
		Random random = new Random(3);
		EntryHeap<Integer> heap = new EntryHeap<>();
		TreeSet<Key> model = new TreeSet<>(Comparator.comparingLong(Key::dueNanos).thenComparingLong(Key::sequence));
		List<HeapEntry<Integer>> entries = new ArrayList<>();
		List<Key> keys = new ArrayList<>();
		long sequence = 0;
		for (int round = 0; round < 20_000; round++) {
			int action = random.nextInt(10);
			if (action < 5 || model.isEmpty()) {
				// Few distinct due times, so sequences break many ties.
				long dueNanos = random.nextInt(500);
				HeapEntry<Integer> entry = new HeapEntry<>(null, entries.size(), sequence);
				Key key = new Key(entries.size(), dueNanos, sequence++);
				heap.add(entry, dueNanos);
				entries.add(entry);
				keys.add(key);
				model.add(key);
			}
			else if (action < 7) {
				int id = random.nextInt(entries.size());
				HeapEntry<Integer> entry = entries.get(id);
				if (entry.heapIndex >= 0) {
					heap.remove(entry);
					model.remove(keys.get(id));
				}
			}
			else if (action < 9) {
				int id = random.nextInt(entries.size());
				HeapEntry<Integer> entry = entries.get(id);
				if (entry.heapIndex >= 0) {
					model.remove(keys.get(id));
					long dueNanos = random.nextInt(500);
					entry.sequence = sequence;
					Key key = new Key(id, dueNanos, sequence++);
					heap.update(entry, dueNanos);
					keys.set(id, key);
					model.add(key);
				}
			}
			else {
				Key expected = model.pollFirst();
				assertThat(heap.firstDueNanos()).isEqualTo(expected.dueNanos());
				assertThat(heap.poll().value()).isEqualTo(expected.id());
			}
			assertThat(heap.size()).isEqualTo(model.size());
		}
		while (!model.isEmpty()) {
			Key expected = model.pollFirst();
			HeapEntry<Integer> polled = heap.poll();
			assertThat(polled.value()).isEqualTo(expected.id());
			assertThat(polled.heapIndex).isEqualTo(-1);
		}
		assertThat(heap.poll()).isNull();
		assertThat(heap.peek()).isNull();
	}

	@Test
	void entriesKnowTheirPositionAndDueTime() {
		EntryHeap<Integer> heap = new EntryHeap<>();
		List<HeapEntry<Integer>> entries = new ArrayList<>();
		for (int i = 0; i < 1_000; i++) {
			HeapEntry<Integer> entry = new HeapEntry<>(null, i, i);
			heap.add(entry, (i * 7_919L) % 1_000);
			entries.add(entry);
		}
		for (int i = 0; i < 1_000; i++) {
			assertThat(heap.dueNanosOf(entries.get(i))).isEqualTo((i * 7_919L) % 1_000);
		}
	}

	record Key(int id, long dueNanos, long sequence) {

	}

}
