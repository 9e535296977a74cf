package dev.workqueue.shared;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The rules of {@link QueueInspector}, written once for every backend: core runs them on
 * the queues {@code WorkQueues} builds (plain, delaying, rate-limiting, priority), and
 * each store module on its own queues, through core's test jar. A backend's test class
 * extends this one and says how to open the test's queue ({@link #newQueue(int)}); what a
 * queue's kind lacks (delays, priorities) is skipped with the reason.
 * <p>
 * A store's class (say {@code RedisQueueInspectorContractTests}) returns from
 * {@code newQueue(keep)} a {@link Handles} whose {@code open()} builds another handle of
 * one queue of the test's own (its own key prefix or table), each an instance of its own
 * as in {@link SharedQueueContract}, built with {@code givenUp(keep, d)} for a {@code d}
 * of an hour or more; and whose {@code close()} removes what the queue left in the store.
 * <p>
 * Time is real time here: only delays of hours are used, and effects on another thread
 * are awaited with a deadline. A test's handles are shut down after it, then its queue is
 * closed.
 */
public abstract class QueueInspectorContract {

	private static final Duration SOON = Duration.ofSeconds(5);

	private static final Duration HOUR = Duration.ofHours(1);

	private final List<WorkQueue<String>> opened = new ArrayList<>();

	private Handles handles;

	/**
	 * Makes the test's queue: its own, empty, keeping at most {@code keepGivenUp}
	 * given-up items (for at least an hour).
	 * @param keepGivenUp how many given-up items the queue keeps
	 * @return its handles
	 * @throws Exception if it cannot be made
	 */
	protected abstract Handles newQueue(int keepGivenUp) throws Exception;

	/**
	 * Whether the queue knows when it handed each item out, so that it lists the
	 * processing items oldest first (an in-memory queue without metrics does not, and
	 * lists them in no set order).
	 * @return {@code true} unless told
	 */
	protected boolean datesHandOuts() {
		return true;
	}

	/**
	 * The handles of one test's queue.
	 */
	public interface Handles extends AutoCloseable {

		/**
		 * Opens a handle of the queue: another instance of it on a shared store, the
		 * queue itself in memory.
		 * @return the handle
		 */
		WorkQueue<String> open();

		/** Removes what the test left in the store. */
		@Override
		void close() throws Exception;

	}

	@AfterEach
	void closeQueue() throws Exception {
		this.opened.forEach(WorkQueue::shutDown);
		if (this.handles != null) {
			this.handles.close();
		}
	}

	private WorkQueue<String> queue(int keepGivenUp) throws Exception {
		this.handles = newQueue(keepGivenUp);
		return handle();
	}

	private WorkQueue<String> queue() throws Exception {
		return queue(100);
	}

	private WorkQueue<String> handle() {
		WorkQueue<String> queue = this.handles.open();
		this.opened.add(queue);
		return queue;
	}

	private static QueueInspector inspector(WorkQueue<String> queue) {
		return queue.capability(QueueInspector.class).orElseThrow();
	}

	private static List<String> texts(List<ItemView> views) {
		return views.stream().map(ItemView::text).toList();
	}

	private static DelayingQueue<String> delaying(WorkQueue<String> queue) {
		assumeTrue(queue instanceof DelayingQueue, () -> queue + " has no delays");
		return (DelayingQueue<String>) queue;
	}

	private static String take(WorkQueue<String> queue) throws InterruptedException {
		String item = queue.poll(SOON);
		assertThat(item).as("an item within " + SOON).isNotNull();
		return item;
	}

	@Test
	void readyItemsAreListedInTheOrderGetHandsThemOut() throws Exception {
		WorkQueue<String> queue = queue();
		if (queue instanceof PriorityQueue<String> priorities) {
			priorities.add("low", 0);
			priorities.add("high-1", 5);
			priorities.add("middle", 2);
			priorities.add("high-2", 5);
		}
		else {
			List.of("c", "a", "b", "d").forEach(queue::add);
		}
		List<ItemView> ready = inspector(queue).items(ItemState.READY, 0, 10);
		assertThat(ready).allSatisfy((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.READY);
			assertThat(view.holder()).isNull();
			assertThat(view.leaseLeft()).isNull();
		});
		List<String> handedOut = new ArrayList<>();
		for (int i = 0; i < ready.size(); i++) {
			handedOut.add(take(queue));
		}
		assertThat(texts(ready)).hasSize(4).isEqualTo(handedOut);
		if (queue instanceof PriorityQueue) {
			assertThat(ready).extracting(ItemView::priority).containsExactly(5, 5, 2, 0);
		}
	}

	@Test
	void processingItemsAreListedWithTheirHolderOldestFirst() throws Exception {
		WorkQueue<String> queue = queue();
		List.of("first", "second", "third").forEach(queue::add);
		take(queue);
		take(queue);
		QueueInspector inspector = inspector(queue);
		List<ItemView> processing = inspector.items(ItemState.PROCESSING, 0, 10);
		if (datesHandOuts()) {
			assertThat(texts(processing)).containsExactly("first", "second");
			assertThat(processing.get(0).at()).isBeforeOrEqualTo(processing.get(1).at());
		}
		else {
			assertThat(texts(processing)).containsExactlyInAnyOrder("first", "second");
		}
		assertThat(processing).allSatisfy((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.PROCESSING);
			assertThat(view.holder()).isEqualTo(inspector.instance());
			assertThat(view.ahead()).isFalse();
		});
		queue.done("first");
		assertThat(texts(inspector.items(ItemState.PROCESSING, 0, 10))).containsExactly("second");
		assertThat(texts(inspector.items(ItemState.READY, 0, 10))).containsExactly("third");
	}

	@Test
	void waitingItemsAreListedSoonestFirstAtTheirDueTimes() throws Exception {
		DelayingQueue<String> queue = delaying(queue());
		Instant before = Instant.now();
		queue.addAfter("in-3h", HOUR.multipliedBy(3));
		queue.addAfter("in-1h", HOUR);
		queue.addAfter("in-2h", HOUR.multipliedBy(2));
		Instant after = Instant.now();
		List<ItemView> waiting = inspector(queue).items(ItemState.WAITING, 0, 10);
		assertThat(texts(waiting)).containsExactly("in-1h", "in-2h", "in-3h");
		assertThat(waiting.get(0).at()).isBetween(before.plus(HOUR).minusSeconds(2), after.plus(HOUR).plusSeconds(2));
		assertThat(Duration.between(waiting.get(0).at(), waiting.get(2).at()))
			.isBetween(HOUR.multipliedBy(2).minusSeconds(2), HOUR.multipliedBy(2).plusSeconds(2));
		assertThat(waiting).allSatisfy((view) -> assertThat(view.state()).isEqualTo(ItemState.WAITING));
		assertThat(inspector(queue).items(ItemState.READY, 0, 10)).isEmpty();
	}

	@Test
	void aPageSkipsItsOffsetAndStopsAtItsLimit() throws Exception {
		WorkQueue<String> queue = queue();
		List<String> items = List.of("i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9");
		items.forEach(queue::add);
		QueueInspector inspector = inspector(queue);
		assertThat(texts(inspector.items(ItemState.READY, 3, 4))).containsExactly("i3", "i4", "i5", "i6");
		assertThat(texts(inspector.items(ItemState.READY, 8, 4))).containsExactly("i8", "i9");
		assertThat(inspector.items(ItemState.READY, 10, 4)).isEmpty();
		assertThat(texts(inspector.items(ItemState.READY, 0, 1))).containsExactly("i0");
		assertThat(inspector.items(ItemState.READY, QueueInspector.MAX_DEPTH - QueueInspector.MAX_LIMIT,
				QueueInspector.MAX_LIMIT))
			.isEmpty();
		if (queue instanceof DelayingQueue<String> delaying) {
			for (int i = 0; i < 10; i++) {
				delaying.addAfter("w" + i, HOUR.plusMinutes(i));
			}
			assertThat(texts(inspector.items(ItemState.WAITING, 2, 3))).containsExactly("w2", "w3", "w4");
			assertThat(texts(inspector.items(ItemState.WAITING, 9, 3))).containsExactly("w9");
		}
	}

	@Test
	void findShowsAnItemInEveryStateItIsIn() throws Exception {
		WorkQueue<String> queue = queue();
		QueueInspector inspector = inspector(queue);
		queue.add("held");
		assertThat(take(queue)).isEqualTo("held");
		queue.add("ready");
		inspector.keepGivenUp("back", 3, "boom");
		queue.add("back");
		inspector.keepGivenUp("lost", 1, "gone");
		assertThat(inspector.find("held")).singleElement().satisfies((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.PROCESSING);
			assertThat(view.holder()).isEqualTo(inspector.instance());
		});
		assertThat(inspector.find("ready")).extracting(ItemView::state).containsExactly(ItemState.READY);
		assertThat(inspector.find("back")).extracting(ItemView::state)
			.containsExactly(ItemState.READY, ItemState.GIVEN_UP);
		assertThat(inspector.find("lost")).singleElement().satisfies((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.GIVEN_UP);
			assertThat(view.attempts()).isEqualTo(1);
			assertThat(view.reason()).isEqualTo("gone");
		});
		assertThat(inspector.find("nowhere")).isEmpty();
		assertThat(inspector.find("read")).as("only an exact text").isEmpty();
		assertThat(inspector.item("ready")).contains("ready");
		assertThat(inspector.item("lost")).contains("lost");
	}

	@Test
	void findShowsAHeldItemAddedWithADelayAsProcessingAndWaiting() throws Exception {
		DelayingQueue<String> queue = delaying(queue());
		QueueInspector inspector = inspector(queue);
		queue.add("held");
		assertThat(take(queue)).isEqualTo("held");
		queue.addAfter("held", HOUR);
		queue.addAfter("later", HOUR);
		assertThat(inspector.find("held")).extracting(ItemView::state)
			.containsExactly(ItemState.PROCESSING, ItemState.WAITING);
		assertThat(inspector.find("later")).singleElement().satisfies((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.WAITING);
			assertThat(view.holder()).isNull();
		});
		assertThat(queue.stats())
			.extracting(WorkQueueStats::processing, WorkQueueStats::waiting, WorkQueueStats::addedWhileProcessing)
			.containsExactly(1, 2, 0);
		assertThat(texts(inspector.items(ItemState.WAITING, 0, 10))).containsExactlyInAnyOrder("held", "later");
	}

	@Test
	void findShowsAHeldItemAddedAgainAsProcessingOnly() throws Exception {
		WorkQueue<String> queue = queue();
		QueueInspector inspector = inspector(queue);
		queue.add("held");
		assertThat(take(queue)).isEqualTo("held");
		queue.add("held");
		assertThat(inspector.find("held")).extracting(ItemView::state).containsExactly(ItemState.PROCESSING);
	}

	/**
	 * An add of a waiting item queues it now and keeps its wait, and an {@code addAfter}
	 * of a ready item waits beside it (client-go's two stages): each shows in both states
	 * and counts in both figures. A priority queue keeps one entry per item instead.
	 */
	@Test
	void aReadyItemWithAWaitPendingIsShownAndCountedReadyAndWaiting() throws Exception {
		DelayingQueue<String> queue = delaying(queue());
		assumeFalse(queue instanceof PriorityQueue, "a priority queue keeps one entry per item");
		QueueInspector inspector = inspector(queue);
		queue.addAfter("waited", HOUR);
		queue.add("waited");
		queue.add("ready");
		queue.addAfter("ready", HOUR);
		assertThat(inspector.find("waited")).extracting(ItemView::state)
			.containsExactly(ItemState.READY, ItemState.WAITING);
		assertThat(inspector.find("ready")).extracting(ItemView::state)
			.containsExactly(ItemState.READY, ItemState.WAITING);
		assertThat(queue.stats()).extracting(WorkQueueStats::depth, WorkQueueStats::waiting).containsExactly(2, 2);
		assertThat(texts(inspector.items(ItemState.WAITING, 0, 10))).containsExactly("waited", "ready");
	}

	@Test
	void givenUpItemsAreKeptNewestFirstUpToTheBoundAndAGiveUpAgainReplaces() throws Exception {
		QueueInspector inspector = inspector(queue(3));
		Instant before = Instant.now().minusSeconds(2);
		inspector.keepGivenUp("a", 1, "first");
		inspector.keepGivenUp("b", 2, "second");
		inspector.keepGivenUp("c", 3, "third");
		inspector.keepGivenUp("d", 4, "fourth");
		assertThat(inspector.givenUpCount()).isEqualTo(3);
		List<ItemView> kept = inspector.items(ItemState.GIVEN_UP, 0, 10);
		assertThat(texts(kept)).containsExactly("d", "c", "b");
		assertThat(kept).allSatisfy((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.GIVEN_UP);
			assertThat(view.holder()).isEqualTo(inspector.instance());
			assertThat(view.at()).isBetween(before, Instant.now().plusSeconds(2));
		});
		assertThat(kept.get(0).attempts()).isEqualTo(4);
		assertThat(kept.get(0).reason()).isEqualTo("fourth");
		inspector.keepGivenUp("b", 5, "again");
		List<ItemView> replaced = inspector.items(ItemState.GIVEN_UP, 0, 10);
		assertThat(texts(replaced)).containsExactly("b", "d", "c");
		assertThat(replaced.get(0).attempts()).isEqualTo(5);
		assertThat(replaced.get(0).reason()).isEqualTo("again");
		assertThat(texts(inspector.items(ItemState.GIVEN_UP, 1, 1))).containsExactly("d");
		assertThat(inspector.find("a")).isEmpty();
	}

	@Test
	void aGivenUpItemIsTakenOrDeletedOnce() throws Exception {
		QueueInspector inspector = inspector(queue());
		inspector.keepGivenUp("taken", 2, "boom");
		inspector.keepGivenUp("deleted", 2, "boom");
		assertThat(inspector.takeGivenUp("taken")).contains("taken");
		assertThat(inspector.takeGivenUp("taken")).isEmpty();
		assertThat(inspector.deleteGivenUp("deleted")).isTrue();
		assertThat(inspector.deleteGivenUp("deleted")).isFalse();
		assertThat(inspector.givenUpCount()).isZero();
		assertThat(inspector.items(ItemState.GIVEN_UP, 0, 10)).isEmpty();
		assertThat(inspector.find("taken")).isEmpty();
	}

	/**
	 * A record is deleted by the time it was given up at only if it is still that one: a
	 * re-add that deletes the record it sent through keeps the record of a give-up that
	 * came after its add.
	 */
	@Test
	void aGivenUpRecordIsDeletedByItsTimeOnlyWhileItIsTheOneSeen() throws Exception {
		QueueInspector inspector = inspector(queue());
		inspector.keepGivenUp("a", 1, "first");
		Instant seen = givenUpAt(inspector, "a");
		await().atMost(SOON).until(() -> {
			inspector.keepGivenUp("a", 2, "again");
			return !givenUpAt(inspector, "a").equals(seen);
		});
		assertThat(inspector.deleteGivenUp("a", seen)).as("another record now").isFalse();
		assertThat(inspector.find("a")).singleElement()
			.satisfies((view) -> assertThat(view.reason()).isEqualTo("again"));
		assertThat(inspector.deleteGivenUp("b", seen)).as("no record").isFalse();
		assertThat(inspector.deleteGivenUp("a", givenUpAt(inspector, "a"))).isTrue();
		assertThat(inspector.givenUpCount()).isZero();
		assertThatNullPointerException().isThrownBy(() -> inspector.deleteGivenUp("a", null));
	}

	private static Instant givenUpAt(QueueInspector inspector, String text) {
		return inspector.find(text)
			.stream()
			.filter((view) -> view.state() == ItemState.GIVEN_UP)
			.findFirst()
			.orElseThrow()
			.at();
	}

	@Test
	void aQueueThatKeepsNoneKeepsNoGivenUpItem() throws Exception {
		QueueInspector inspector = inspector(queue(0));
		inspector.keepGivenUp("a", 1, "boom");
		assertThat(inspector.givenUpCount()).isZero();
		assertThat(inspector.find("a")).isEmpty();
	}

	@Test
	@Timeout(30)
	void aPausedQueueHandsNothingOutOnAnyHandleUntilResumed() throws Exception {
		WorkQueue<String> pauser = queue();
		WorkQueue<String> consumer = handle();
		inspector(pauser).pause();
		assertThat(inspector(pauser).paused()).isTrue();
		assertThat(inspector(consumer).paused()).isTrue();
		pauser.add("held-back");
		assertThat(consumer.poll(Duration.ofMillis(500))).as("handed out while paused").isNull();
		assertThat(inspector(pauser).items(ItemState.READY, 0, 10)).extracting(ItemView::text)
			.containsExactly("held-back");
		FutureTask<String> got = new FutureTask<>(consumer::get);
		Thread getter = new Thread(got, "inspector-contract-get");
		getter.setDaemon(true);
		getter.start();
		await().atMost(SOON)
			.until(() -> getter.getState() == Thread.State.WAITING || getter.getState() == Thread.State.TIMED_WAITING);
		inspector(pauser).resume();
		assertThat(got.get(SOON.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("held-back");
		assertThat(inspector(consumer).paused()).isFalse();
	}

	@Test
	void pagesOutOfRangeAreRefusedNamingTheArgument() throws Exception {
		QueueInspector inspector = inspector(queue());
		for (ItemState state : ItemState.values()) {
			assertThatIllegalArgumentException().isThrownBy(() -> inspector.items(state, -1, 10))
				.withMessageContaining("offset");
			assertThatIllegalArgumentException().isThrownBy(() -> inspector.items(state, 0, 0))
				.withMessageContaining("limit");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> inspector.items(state, 0, QueueInspector.MAX_LIMIT + 1))
				.withMessageContaining("limit");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> inspector.items(state, QueueInspector.MAX_DEPTH - QueueInspector.MAX_LIMIT + 1,
						QueueInspector.MAX_LIMIT))
				.withMessageContaining("offset");
			assertThatIllegalArgumentException().isThrownBy(() -> inspector.items(state, Integer.MAX_VALUE, 1))
				.withMessageContaining("offset");
		}
		assertThatNullPointerException().isThrownBy(() -> inspector.items(null, 0, 10)).withMessageContaining("state");
		assertThatNullPointerException().isThrownBy(() -> inspector.find(null)).withMessageContaining("text");
		assertThatNullPointerException().isThrownBy(() -> inspector.keepGivenUp(null, 1, "boom"))
			.withMessageContaining("item");
	}

	@Test
	void aGivenUpRecordWithoutAReasonOrWithNegativeAttemptsIsRefused() throws Exception {
		QueueInspector inspector = inspector(queue());
		assertThatNullPointerException().isThrownBy(() -> inspector.keepGivenUp("a", 1, null))
			.withMessageContaining("reason");
		assertThatIllegalArgumentException().isThrownBy(() -> inspector.keepGivenUp("a", -1, "boom"))
			.withMessageContaining("attempts");
		assertThat(inspector.givenUpCount()).isZero();
		inspector.keepGivenUp("a", 0, "");
		assertThat(inspector.find("a")).extracting(ItemView::attempts, ItemView::reason).containsExactly(tuple(0, ""));
	}

}
