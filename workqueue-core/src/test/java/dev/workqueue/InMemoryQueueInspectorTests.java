package dev.workqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What the in-memory queues' inspector does beyond {@code QueueInspectorContract}: times
 * on the queue's clock, the priority order with starvation, the rate limiter's counts,
 * texts with and without a codec, the pause on every hand-out path, and a page of a large
 * backlog.
 */
class InMemoryQueueInspectorTests {

	private static final Duration HOUR = Duration.ofHours(1);

	/** Integers as {@code #n}; anything else cannot be decoded. */
	private static final ItemCodec<Integer> NUMBERS = new ItemCodec<>() {

		@Override
		public String encode(Integer item) {
			return "#" + item;
		}

		@Override
		public Integer decode(String encoded) {
			if (!encoded.startsWith("#")) {
				throw new IllegalArgumentException("no #");
			}
			return Integer.valueOf(encoded.substring(1));
		}

	};

	private final FakeClock clock = new FakeClock();

	private static QueueInspector inspector(WorkQueue<?> queue) {
		return queue.capability(QueueInspector.class).orElseThrow();
	}

	private static List<String> texts(List<ItemView> views) {
		return views.stream().map(ItemView::text).toList();
	}

	@Test
	void readyItemsOfAPriorityQueueComeStarvingFirstAsGetHandsThemOut() throws Exception {
		PriorityQueue<String> queue = WorkQueues.<String>builder()
			.clock(this.clock)
			.starvationTimeout(Duration.ofSeconds(10))
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter());
		queue.add("old-low", 0);
		queue.add("old-mid", 1);
		queue.add("young-low", 0);
		this.clock.step(Duration.ofSeconds(6));
		queue.add("new-mid", 1);
		queue.add("new-high", 5);
		this.clock.step(Duration.ofSeconds(5));
		List<ItemView> ready = inspector(queue).items(ItemState.READY, 0, 10);
		assertThat(texts(ready)).containsExactly("old-low", "old-mid", "young-low", "new-high", "new-mid");
		assertThat(ready.get(0).at()).isEqualTo(Instant.EPOCH);
		assertThat(ready.get(3).at()).isEqualTo(Instant.EPOCH.plusSeconds(6));
		assertThat(texts(inspector(queue).items(ItemState.READY, 3, 1))).containsExactly("new-high");
		List<String> handedOut = new ArrayList<>();
		for (int i = 0; i < ready.size(); i++) {
			handedOut.add(queue.poll(Duration.ZERO));
		}
		assertThat(handedOut).isEqualTo(texts(ready));
	}

	@Test
	void timesAreTheQueuesClockReadingsOnTheWallClock() throws Exception {
		DelayingQueue<String> queue = WorkQueues.<String>builder()
			.clock(this.clock)
			.metrics(new RecordingMetrics())
			.buildDelayingQueue();
		QueueInspector inspector = inspector(queue);
		this.clock.step(Duration.ofSeconds(1));
		queue.addAfter("later", Duration.ofSeconds(5));
		queue.add("now");
		this.clock.step(Duration.ofSeconds(2));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("now");
		inspector.keepGivenUp("lost", 2, "boom");
		assertThat(inspector.items(ItemState.WAITING, 0, 1)).singleElement()
			.extracting(ItemView::at)
			.isEqualTo(Instant.EPOCH.plusSeconds(6));
		assertThat(inspector.items(ItemState.PROCESSING, 0, 1)).singleElement()
			.extracting(ItemView::at)
			.isEqualTo(Instant.EPOCH.plusSeconds(3));
		assertThat(inspector.items(ItemState.GIVEN_UP, 0, 1)).singleElement()
			.extracting(ItemView::at)
			.isEqualTo(Instant.EPOCH.plusSeconds(3));
		assertThat(inspector.backend()).isEqualTo("memory");
		assertThat(inspector.instance())
			.isEqualTo(ProcessHandle.current().pid() + "@" + java.net.InetAddress.getLocalHost().getHostName());
	}

	@Test
	void attemptsAreTheRateLimitersCountOnARateLimitingQueueOnly() {
		RateLimitingQueue<String> limited = WorkQueues.<String>builder()
			.clock(this.clock)
			.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());
		limited.addRateLimited("retried");
		limited.addRateLimited("retried");
		assertThat(inspector(limited).find("retried")).singleElement().satisfies((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.WAITING);
			assertThat(view.attempts()).isEqualTo(2);
		});
		DelayingQueue<String> plain = WorkQueues.<String>builder().clock(this.clock).buildDelayingQueue();
		plain.add("once");
		assertThat(inspector(plain).find("once")).singleElement().extracting(ItemView::attempts).isEqualTo(-1);
	}

	@Test
	void withACodecTextsAreEncodingsAndReadBack() {
		WorkQueue<Integer> queue = WorkQueues.<Integer>builder().codec(NUMBERS).buildQueue();
		QueueInspector inspector = inspector(queue);
		queue.add(5);
		assertThat(inspector.readsText()).isTrue();
		assertThat(texts(inspector.items(ItemState.READY, 0, 10))).containsExactly("#5");
		assertThat(inspector.find("#5")).extracting(ItemView::state).containsExactly(ItemState.READY);
		assertThat(inspector.find("5")).isEmpty();
		assertThat(inspector.item("#9")).as("decoded, in the queue or not").contains(9);
		assertThatIllegalArgumentException().isThrownBy(() -> inspector.item("9")).withMessageContaining("text");
		inspector.keepGivenUp(7, 3, "boom");
		assertThat(inspector.takeGivenUp("#7")).contains(7);
	}

	@Test
	@SuppressWarnings({ "unchecked", "rawtypes" })
	void aGivenUpItemTheCodecCannotEncodeIsShownAsItsStringValue() {
		WorkQueue<Integer> queue = WorkQueues.<Integer>builder().codec(NUMBERS).buildQueue();
		QueueInspector inspector = inspector(queue);
		// A worker gives up on an item its method could not take: one of another type.
		inspector.keepGivenUp("not-a-number", 1, "java.lang.ClassCastException");
		inspector.keepGivenUp(7, 3, "boom");
		assertThat(texts(inspector.items(ItemState.GIVEN_UP, 0, 10))).containsExactly("#7", "not-a-number");
	}

	@Test
	void withoutACodecTextsAreStringValuesFoundByAScan() {
		WorkQueue<Integer> queue = WorkQueues.<Integer>builder().buildQueue();
		QueueInspector inspector = inspector(queue);
		queue.add(5);
		inspector.keepGivenUp(7, 3, "boom");
		assertThat(inspector.readsText()).isFalse();
		assertThat(inspector.find("5")).extracting(ItemView::state).containsExactly(ItemState.READY);
		assertThat(inspector.item("5")).contains(5);
		assertThat(inspector.item("7")).contains(7);
		assertThat(inspector.item("6")).isEmpty();
		assertThat(inspector.takeGivenUp("7")).as("the item itself, kept without a codec").contains(7);
	}

	@Test
	void withoutACodecTextsAreComparedOutsideTheQueuesLock() {
		WorkQueue<Object> queue = WorkQueues.<Object>builder().buildQueue();
		queue.add(new Object() {

			/**
			 * Adds another item from another thread, which waits while the lock is held.
			 */
			@Override
			public String toString() {
				try {
					CompletableFuture.runAsync(() -> queue.add("other")).get(5, TimeUnit.SECONDS);
				}
				catch (Exception ex) {
					throw new IllegalStateException("the queue stayed locked while a text was made", ex);
				}
				return "probe";
			}

		});
		assertThat(inspector(queue).find("probe")).extracting(ItemView::state).containsExactly(ItemState.READY);
		assertThat(queue.size()).isEqualTo(2);
	}

	@Test
	void aPausedQueueHandsNothingOutOnAnyPathAndShutdownEndsAPausedGet() throws Exception {
		PriorityQueue<String> queue = WorkQueues.<String>builder()
			.clock(this.clock)
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter());
		QueueInspector inspector = inspector(queue);
		queue.add("item", 1);
		inspector.pause();
		assertThat(queue.poll(Duration.ZERO)).isNull();
		assertThat(queue.pollWithPriority(Duration.ZERO)).isNull();
		assertThat(queue.capability(PollerFactory.class).orElseThrow().newPoller().poll(Duration.ZERO)).isNull();
		FutureTask<String> paused = new FutureTask<>(queue::get);
		Thread getter = new Thread(paused, "paused-get");
		getter.setDaemon(true);
		getter.start();
		Await.until(() -> getter.getState() == Thread.State.WAITING);
		inspector.resume();
		assertThat(paused.get(1, TimeUnit.SECONDS)).isEqualTo("item");
		queue.add("next", 1);
		inspector.pause();
		CompletableFuture<String> shutDown = CompletableFuture.supplyAsync(() -> {
			try {
				return queue.get();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		queue.shutDown();
		assertThat(shutDown.get(1, TimeUnit.SECONDS)).as("a paused, shut-down queue's get").isNull();
	}

	@Test
	void aPageOfAMillionWaitingItemsIsTheSoonestInOrder() {
		DelayingQueue<Integer> queue = WorkQueues.<Integer>builder().clock(this.clock).buildDelayingQueue();
		List<Integer> items = new ArrayList<>(IntStream.range(0, 1_000_000).boxed().toList());
		Collections.shuffle(items, new Random(40));
		for (Integer item : items) {
			queue.addAfter(item, HOUR.plusMillis(item));
		}
		QueueInspector inspector = inspector(queue);
		assertThat(texts(inspector.items(ItemState.WAITING, 0, QueueInspector.MAX_LIMIT)))
			.isEqualTo(IntStream.range(0, QueueInspector.MAX_LIMIT).mapToObj(String::valueOf).toList());
		assertThat(texts(inspector.items(ItemState.WAITING, QueueInspector.MAX_DEPTH - 3, 3)))
			.as("the deepest page there is")
			.containsExactly("9997", "9998", "9999");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> inspector.items(ItemState.WAITING, 999_000, QueueInspector.MAX_LIMIT))
			.withMessageContaining("offset");
		assertThat(inspector.items(ItemState.READY, 0, 10)).isEmpty();
	}

}
