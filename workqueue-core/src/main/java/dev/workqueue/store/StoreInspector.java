package dev.workqueue.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import dev.workqueue.ItemCodec;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;

/**
 * The {@link QueueInspector} of a shared store's queue: the handle's side of the store's
 * {@link InspectionDriver}. It checks the arguments, turns texts into items with the
 * queue's codec (a text here is the item's encoding), and marks the items this handle
 * claimed ahead for its waiting consumers (as its {@link ItemTaker} tells), which the
 * store cannot tell; the driver talks to the store. Found with
 * {@code capability(QueueInspector.class)} on the {@link SharedStoreQueue} and on every
 * queue that wraps it. Thread-safe, holding no state of its own.
 *
 * @param <T> the item type
 */
final class StoreInspector<T> implements QueueInspector {

	private final ItemCodec<T> codec;

	private final InspectionDriver driver;

	/** The encodings of the items this handle holds ahead of its consumers. */
	private final Supplier<Set<String>> ahead;

	/**
	 * Makes the inspector of one handle.
	 * @param codec the queue's codec
	 * @param driver the store's side
	 * @param ahead the encodings of the items the handle claimed ahead for its waiting
	 * consumers and has not handed out yet ({@link ItemTaker#aheadEncodings()})
	 */
	StoreInspector(ItemCodec<T> codec, InspectionDriver driver, Supplier<Set<String>> ahead) {
		this.codec = codec;
		this.driver = driver;
		this.ahead = ahead;
	}

	@Override
	public String backend() {
		return this.driver.backend();
	}

	@Override
	public String instance() {
		return this.driver.instance();
	}

	@Override
	public List<ItemView> items(ItemState state, int offset, int limit) {
		Objects.requireNonNull(state, "state");
		QueueInspector.checkPage(offset, limit);
		return markAhead(this.driver.items(state, offset, limit));
	}

	@Override
	public List<ItemView> find(String text) {
		return markAhead(this.driver.find(Objects.requireNonNull(text, "text")));
	}

	@Override
	public int givenUpCount() {
		return this.driver.givenUpCount();
	}

	@Override
	@SuppressWarnings("unchecked")
	public void keepGivenUp(Object item, int attempts, String reason) {
		QueueInspector.checkGivenUp(item, attempts, reason);
		String encoded = this.codec.encode((T) item);
		this.driver.keepGivenUp(Objects.requireNonNull(encoded, "codec.encode(item)"), attempts, reason);
	}

	/** {@inheritDoc} Always: a shared queue has a codec. */
	@Override
	public boolean readsText() {
		return true;
	}

	@Override
	public Optional<Object> item(String text) {
		return Optional.of(QueueInspector.decode(this.codec, Objects.requireNonNull(text, "text")));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Decodes first, so that a payload the codec cannot read keeps its record; then
	 * deletes the record. A text the codec cannot read throws only when a given-up record
	 * has it (one more round trip to find out).
	 */
	@Override
	public Optional<Object> takeGivenUp(String text) {
		Objects.requireNonNull(text, "text");
		T item;
		try {
			item = QueueInspector.decode(this.codec, text);
		}
		catch (IllegalArgumentException ex) {
			if (this.driver.find(text).stream().noneMatch((view) -> view.state() == ItemState.GIVEN_UP)) {
				return Optional.empty();
			}
			throw ex;
		}
		return this.driver.deleteGivenUp(text, null) ? Optional.of(item) : Optional.empty();
	}

	@Override
	public boolean deleteGivenUp(String text) {
		return this.driver.deleteGivenUp(Objects.requireNonNull(text, "text"), null);
	}

	@Override
	public boolean deleteGivenUp(String text, Instant givenUpAt) {
		return this.driver.deleteGivenUp(Objects.requireNonNull(text, "text"),
				Objects.requireNonNull(givenUpAt, "givenUpAt"));
	}

	/**
	 * Marks the items this handle holds ahead, which the store cannot tell from those its
	 * workers hold; the items ahead are read after the store, once, and only when a view
	 * may be one of them.
	 */
	private List<ItemView> markAhead(List<ItemView> views) {
		String instance = this.driver.instance();
		if (views.stream().noneMatch((view) -> held(view, instance))) {
			return views;
		}
		Set<String> ahead = this.ahead.get();
		return views.stream()
			.map((view) -> (held(view, instance) && ahead.contains(view.text()))
					? new ItemView(view.text(), view.state(), view.priority(), view.at(), view.holder(),
							view.leaseLeft(), true, view.attempts(), view.reason())
					: view)
			.toList();
	}

	/** Whether {@code instance} holds the item, not marked ahead. */
	private static boolean held(ItemView view, String instance) {
		return view.state() == ItemState.PROCESSING && !view.ahead() && instance.equals(view.holder());
	}

	@Override
	public void pause() {
		this.driver.pause(true);
	}

	@Override
	public void resume() {
		this.driver.pause(false);
	}

	@Override
	public boolean paused() {
		return this.driver.paused();
	}

}
