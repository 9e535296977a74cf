package dev.workqueue.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.workqueue.internal.ItemTableTests.Entry;
import dev.workqueue.internal.ItemTableTests.Key;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock-free {@link ItemTable#get} beside one writer that fills the table across the size
 * where it turns into segments and empties it back into one array, again and again: a
 * reader may miss an entry being moved (the class allows it), but never fails, never
 * returns the entry of another item, and finds the entries that stay most of the time.
 */
class ItemTableStressTests {

	private static final int STAYING = 1_000;

	private static final int CHURNING = 100_000;

	@Test
	void readersRacingLayoutChangesGetOnlyTheirOwnEntries() throws InterruptedException {
		ItemTable<Key, Entry> table = new ItemTable<>();
		Entry[] staying = new Entry[STAYING];
		for (int i = 0; i < STAYING; i++) {
			staying[i] = new Entry(new Key(i, i));
			table.putIfAbsent(staying[i]);
		}
		AtomicBoolean writing = new AtomicBoolean(true);
		AtomicInteger wrong = new AtomicInteger();
		AtomicLong found = new AtomicLong();
		AtomicLong missed = new AtomicLong();
		List<Throwable> failures = new ArrayList<>();
		List<Thread> readers = new ArrayList<>();
		for (int r = 0; r < 2; r++) {
			Thread reader = new Thread(() -> {
				int i = 0;
				while (writing.get()) {
					i = (i + 1) % STAYING;
					Entry entry = table.get(new Key(i, i));
					if (entry == null) {
						missed.incrementAndGet();
					}
					else if (entry != staying[i]) {
						wrong.incrementAndGet();
					}
					else {
						found.incrementAndGet();
					}
					// A churning item: absent, present or moving; never another's entry.
					int id = STAYING + (i * 97) % CHURNING;
					Entry other = table.get(new Key(id, id));
					if (other != null && other.item.id() != id) {
						wrong.incrementAndGet();
					}
				}
			}, "reader-" + r);
			reader.setUncaughtExceptionHandler((thread, ex) -> {
				synchronized (failures) {
					failures.add(ex);
				}
			});
			readers.add(reader);
			reader.start();
		}
		Entry[] churning = new Entry[CHURNING];
		for (int round = 0; round < 10; round++) {
			for (int i = 0; i < CHURNING; i++) {
				int id = STAYING + i;
				churning[i] = new Entry(new Key(id, id));
				table.putIfAbsent(churning[i]);
			}
			assertThat(table.segmentCount()).isGreaterThan(1);
			for (Entry entry : churning) {
				table.remove(entry);
			}
			assertThat(table.segmentCount()).isOne();
		}
		writing.set(false);
		for (Thread reader : readers) {
			reader.join(10_000);
			assertThat(reader.isAlive()).isFalse();
		}
		assertThat(failures).isEmpty();
		assertThat(wrong).hasValue(0);
		assertThat(found.get()).as("found most of the time").isGreaterThan(missed.get());
		for (Entry entry : staying) {
			assertThat(table.get(entry.item)).isSameAs(entry);
		}
	}

}
