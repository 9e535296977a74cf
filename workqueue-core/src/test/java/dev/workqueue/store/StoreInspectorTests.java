package dev.workqueue.store;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The handle's side of a shared queue's inspector: it checks the arguments before the
 * store hears of them, and turns texts into items with the queue's codec.
 */
class StoreInspectorTests {

	/** Integers as their decimal text; anything else cannot be decoded. */
	private static final ItemCodec<Integer> NUMBERS = new ItemCodec<>() {

		@Override
		public String encode(Integer item) {
			return item.toString();
		}

		@Override
		public Integer decode(String encoded) {
			return Integer.valueOf(encoded);
		}

	};

	private final KeptInspection store = new KeptInspection();

	/** The encodings this instance holds ahead, as its taker would say. */
	private final Set<String> ahead = ConcurrentHashMap.newKeySet();

	private final QueueInspector inspector = new StoreInspector<>(NUMBERS, this.store, () -> Set.copyOf(this.ahead));

	@Test
	void pagesOutOfRangeAreRefusedNamingTheArgumentBeforeTheStoreIsAsked() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.inspector.items(ItemState.READY, -1, 10))
			.withMessageContaining("offset");
		assertThatIllegalArgumentException().isThrownBy(() -> this.inspector.items(ItemState.READY, 0, 0))
			.withMessageContaining("limit");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.inspector.items(ItemState.READY, 0, QueueInspector.MAX_LIMIT + 1))
			.withMessageContaining("limit");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.inspector.items(ItemState.READY, QueueInspector.MAX_DEPTH, 1))
			.withMessageContaining("offset");
		assertThat(this.store.calls()).isEmpty();
		assertThat(this.inspector.items(ItemState.READY, 3, QueueInspector.MAX_LIMIT)).isEmpty();
		assertThat(this.store.calls()).containsExactly("items ready 3 1000");
	}

	@Test
	void aGivenUpItemIsKeptByItsEncodingAndTakenBackAsAnItem() {
		this.inspector.keepGivenUp(42, 3, "boom");
		assertThat(this.inspector.find("42")).extracting(ItemView::text, ItemView::attempts, ItemView::reason)
			.containsExactly(tuple("42", 3, "boom"));
		assertThat(this.inspector.takeGivenUp("42")).contains(42);
		assertThat(this.inspector.givenUpCount()).isZero();
		assertThat(this.inspector.takeGivenUp("42")).isEmpty();
	}

	@Test
	void aTextTheCodecCannotReadIsRefusedNamingTextAndItsRecordIsKept() {
		this.store.keepGivenUp("forty-two", 1, "cannot decode");
		assertThatIllegalArgumentException().isThrownBy(() -> this.inspector.takeGivenUp("forty-two"))
			.withMessageContaining("text");
		assertThat(this.inspector.givenUpCount()).isOne();
		assertThatIllegalArgumentException().isThrownBy(() -> this.inspector.item("forty-two"))
			.withMessageContaining("text");
		assertThat(this.inspector.deleteGivenUp("forty-two")).isTrue();
		assertThat(this.store.calls()).containsExactly("find forty-two", "delete forty-two");
	}

	@Test
	void aGivenUpRecordWithoutItemOrReasonOrWithNegativeAttemptsNeverReachesTheStore() {
		assertThatNullPointerException().isThrownBy(() -> this.inspector.keepGivenUp(null, 1, "boom"))
			.withMessageContaining("item");
		assertThatNullPointerException().isThrownBy(() -> this.inspector.keepGivenUp(1, 1, null))
			.withMessageContaining("reason");
		assertThatIllegalArgumentException().isThrownBy(() -> this.inspector.keepGivenUp(1, -1, "boom"))
			.withMessageContaining("attempts");
		assertThat(this.inspector.givenUpCount()).isZero();
	}

	@Test
	void takingATextTheCodecCannotReadFindsNothingWhenNoRecordHasIt() {
		assertThat(this.inspector.takeGivenUp("nothing")).isEmpty();
		assertThat(this.store.calls()).as("nothing deleted").containsExactly("find nothing");
	}

	@Test
	void itemsThisInstanceHoldsAheadShowAsAheadInListsAndFinds() {
		this.store.hold("1", "fake-1");
		this.store.hold("2", "fake-1");
		this.store.hold("3", "fake-2");
		this.ahead.addAll(Set.of("2", "3"));
		assertThat(this.inspector.items(ItemState.PROCESSING, 0, 10)).extracting(ItemView::text, ItemView::ahead)
			.as("another instance's items are its own to tell")
			.containsExactly(tuple("1", false), tuple("2", true), tuple("3", false));
		assertThat(this.inspector.find("2")).extracting(ItemView::ahead).containsExactly(true);
		this.ahead.clear();
		assertThat(this.inspector.find("2")).extracting(ItemView::ahead).containsExactly(false);
	}

	@Test
	void itemDecodesAndTheStoreReadsText() {
		assertThat(this.inspector.item("7")).contains(7);
		assertThat(this.inspector.readsText()).isTrue();
		assertThat(this.inspector.backend()).isEqualTo("fake");
		assertThat(this.inspector.instance()).isEqualTo("fake-1");
	}

	@Test
	void pauseAndResumeSetTheStoresFlag() {
		this.inspector.pause();
		assertThat(this.store.paused()).isTrue();
		assertThat(this.inspector.paused()).isTrue();
		this.inspector.resume();
		assertThat(this.inspector.paused()).isFalse();
	}

	@Test
	void findListsWhatTheStoreFound() {
		assertThat(this.inspector.find("1")).isEmpty();
		this.store.keepGivenUp("1", 0, null);
		assertThat(this.inspector.find("1")).map(ItemView::state).isEqualTo(List.of(ItemState.GIVEN_UP));
	}

}
