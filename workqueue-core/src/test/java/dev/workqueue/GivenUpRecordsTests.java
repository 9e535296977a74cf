package dev.workqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.workqueue.GivenUpRecords.GivenUp;
import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The given-up records of an in-memory queue: the newest {@code keep}, each for less than
 * its retention on the queue's clock, one per item.
 */
class GivenUpRecordsTests {

	private final FakeClock clock = new FakeClock();

	private GivenUpRecords<String> records(int keep, Duration retention) {
		return new GivenUpRecords<>(new GivenUpBound(keep, retention), this.clock);
	}

	private static List<String> items(List<GivenUp<String>> records) {
		return records.stream().map(GivenUp::item).toList();
	}

	@Test
	void theNewestAreKeptUpToTheBoundNewestFirst() {
		GivenUpRecords<String> records = records(3, Duration.ofHours(1));
		for (String item : List.of("a", "b", "c", "d", "e")) {
			records.keep(item, 1, "boom");
		}
		assertThat(records.size()).isEqualTo(3);
		assertThat(items(records.page(0, 10))).containsExactly("e", "d", "c");
		assertThat(items(records.page(1, 1))).containsExactly("d");
		assertThat(records.page(3, 10)).isEmpty();
		assertThat(records.get("a")).isNull();
	}

	@Test
	void aRecordIsDroppedOnceItsRetentionHasPassed() {
		GivenUpRecords<String> records = records(10, Duration.ofSeconds(10));
		records.keep("early", 1, "boom");
		this.clock.step(Duration.ofSeconds(5));
		records.keep("late", 1, "boom");
		this.clock.step(Duration.ofSeconds(5).minusNanos(1));
		assertThat(items(records.page(0, 10))).containsExactly("late", "early");
		this.clock.step(Duration.ofNanos(1));
		assertThat(items(records.page(0, 10))).containsExactly("late");
		assertThat(records.get("early")).isNull();
		this.clock.step(Duration.ofSeconds(5));
		assertThat(records.size()).isZero();
	}

	@Test
	void aGiveUpAgainReplacesTheRecordAndStartsItsRetentionAnew() {
		GivenUpRecords<String> records = records(10, Duration.ofSeconds(10));
		records.keep("a", 1, "first");
		records.keep("b", 1, "boom");
		this.clock.step(Duration.ofSeconds(8));
		Instant againAt = this.clock.instant();
		records.keep("a", 4, "again");
		assertThat(items(records.page(0, 10))).containsExactly("a", "b");
		this.clock.step(Duration.ofSeconds(5));
		assertThat(records.page(0, 10)).singleElement()
			.isEqualTo(new GivenUp<>("a", 4, "again", Duration.ofSeconds(8).toNanos(), againAt));
	}

	@Test
	void removeByTimeTakesTheRecordOnlyWhileItIsTheOneGivenUpThen() {
		GivenUpRecords<String> records = records(10, Duration.ofHours(1));
		Instant firstAt = this.clock.instant();
		records.keep("a", 1, "first");
		this.clock.step(Duration.ofSeconds(1));
		records.keep("a", 2, "again");
		assertThat(records.remove("a", firstAt)).isFalse();
		assertThat(records.get("a").reason()).isEqualTo("again");
		assertThat(records.remove("a", this.clock.instant())).isTrue();
		assertThat(records.size()).isZero();
		assertThat(records.remove("a", this.clock.instant())).isFalse();
	}

	@Test
	void removeTakesOneRecordOnce() {
		GivenUpRecords<String> records = records(10, Duration.ofHours(1));
		records.keep("a", 1, "boom");
		records.keep("b", 1, "boom");
		records.keep("c", 1, "boom");
		assertThat(records.remove("b")).extracting(GivenUp::item).isEqualTo("b");
		assertThat(records.remove("b")).isNull();
		assertThat(items(records.page(0, 10))).containsExactly("c", "a");
		assertThat(records.find((item) -> item.startsWith("a"))).extracting(GivenUp::item).isEqualTo("a");
	}

	@Test
	void keepingNoneKeepsNothingAndLongReasonsAreCut() {
		GivenUpRecords<String> none = records(0, Duration.ofHours(1));
		none.keep("a", 1, "boom");
		assertThat(none.size()).isZero();
		GivenUpRecords<String> records = records(1, Duration.ofHours(1));
		records.keep("a", 1, "x".repeat(GivenUpRecords.MAX_REASON_CHARS + 10));
		assertThat(records.get("a").reason()).hasSize(GivenUpRecords.MAX_REASON_CHARS);
	}

	@Test
	void concurrentKeepsAndRemovesStayWithinTheBoundAndConsistent() throws Exception {
		GivenUpRecords<String> records = records(100, Duration.ofHours(1));
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<CompletableFuture<Void>> runs = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int thread = t;
				runs.add(CompletableFuture.runAsync(() -> {
					for (int i = 0; i < 20_000; i++) {
						String item = "item-" + ((i * 7 + thread) % 500);
						if (i % 5 == 0) {
							records.remove(item);
						}
						else {
							records.keep(item, i, null);
						}
						assertThat(records.size()).isLessThanOrEqualTo(100);
					}
				}, threads));
			}
			CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdownNow();
		}
		List<GivenUp<String>> page = records.page(0, 1000);
		assertThat(page).hasSize(records.size());
		assertThat(new HashSet<>(items(page))).hasSize(page.size());
		for (GivenUp<String> record : page) {
			assertThat(records.get(record.item())).isSameAs(record);
		}
	}

}
