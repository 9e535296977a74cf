package dev.workqueue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.ToIntFunction;

import dev.workqueue.GivenUpRecords.GivenUp;
import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.time.Clock;

/**
 * The {@link QueueInspector} of an in-memory queue, found through every wrapper with
 * {@code capability}: it reads the {@link DelayingWorkQueue} under its lock (see
 * {@link DelayingWorkQueue#look}) and keeps the given-up items in {@link GivenUpRecords}.
 * An item's text is its codec's encoding where the builder was given a codec, else
 * {@code String.valueOf(item)}; texts are made, and the rate limiter's counts read, after
 * the queue's lock is released. Times are the queue's clock readings placed on the wall
 * clock by {@link Clock#instant()}, once per call; a time the queue does not keep (when
 * an item became ready or was handed out, on a queue without metrics, or without a
 * starvation guard for ready ones) shows as the time of the look.
 * <p>
 * Finding by text: with a codec, the text is decoded and the item looked up; without one,
 * the text is tried as the item itself (a queue of strings), then every item's text is
 * compared, in O(n), after the queue's lock is released (under it only references are
 * copied, see {@link DelayingWorkQueue#scan}). Either way only an item whose text is
 * exactly {@code text} is found. Thread-safe.
 *
 * @param <T> the item type
 */
final class MemoryInspector<T> implements QueueInspector {

	private final DelayingWorkQueue<T> queue;

	private final Clock clock;

	/** {@code null}: none, texts are {@code String.valueOf}. */
	private final ItemCodec<T> codec;

	/** The rate limiter's count, {@code null} on a queue without one. */
	private final ToIntFunction<? super T> attempts;

	private final GivenUpRecords<T> givenUp;

	MemoryInspector(DelayingWorkQueue<T> queue, Clock clock, Options<T> options) {
		this.queue = queue;
		this.clock = clock;
		this.codec = options.codec();
		this.attempts = options.attempts();
		this.givenUp = new GivenUpRecords<>(options.givenUp(), clock);
	}

	/** {@inheritDoc} Always {@code memory}. */
	@Override
	public String backend() {
		return "memory";
	}

	/** {@inheritDoc} The process, as {@code pid@hostname}. */
	@Override
	public String instance() {
		return Instance.NAME;
	}

	@Override
	public List<ItemView> items(ItemState state, int offset, int limit) {
		Objects.requireNonNull(state, "state");
		QueueInspector.checkPage(offset, limit);
		if (state == ItemState.GIVEN_UP) {
			return this.givenUp.page(offset, limit).stream().map(this::view).toList();
		}
		Clocks at = new Clocks(this.clock);
		return this.queue.look(state, offset, limit).stream().map((seen) -> view(seen, at)).toList();
	}

	@Override
	public List<ItemView> find(String text) {
		Objects.requireNonNull(text, "text");
		Clocks at = new Clocks(this.clock);
		List<ItemView> found = new ArrayList<>(3);
		for (Sighting<T> seen : sightings(text)) {
			found.add(view(seen, at));
		}
		GivenUp<T> record = record(text);
		if (record != null) {
			found.add(view(record));
		}
		return found;
	}

	@Override
	public int givenUpCount() {
		return this.givenUp.size();
	}

	@Override
	@SuppressWarnings("unchecked")
	public void keepGivenUp(Object item, int attempts, String reason) {
		QueueInspector.checkGivenUp(item, attempts, reason);
		this.givenUp.keep((T) item, attempts, reason);
	}

	/** {@inheritDoc} Whether the builder was given a codec. */
	@Override
	public boolean readsText() {
		return this.codec != null;
	}

	@Override
	public Optional<Object> item(String text) {
		Objects.requireNonNull(text, "text");
		if (this.codec != null) {
			return Optional.of(QueueInspector.decode(this.codec, text));
		}
		List<Sighting<T>> seen = sightings(text);
		if (!seen.isEmpty()) {
			return Optional.of(seen.get(0).item());
		}
		GivenUp<T> record = record(text);
		return (record != null) ? Optional.of(record.item()) : Optional.empty();
	}

	@Override
	public Optional<Object> takeGivenUp(String text) {
		return Optional.ofNullable(removeGivenUp(text));
	}

	@Override
	public boolean deleteGivenUp(String text) {
		return removeGivenUp(text) != null;
	}

	@Override
	public boolean deleteGivenUp(String text, Instant givenUpAt) {
		Objects.requireNonNull(givenUpAt, "givenUpAt");
		GivenUp<T> record = record(Objects.requireNonNull(text, "text"));
		// Compared again under the records' lock: a give-up since replaced the record.
		return record != null && this.givenUp.remove(record.item(), givenUpAt);
	}

	@Override
	public void pause() {
		this.queue.pause(true);
	}

	@Override
	public void resume() {
		this.queue.pause(false);
	}

	@Override
	public boolean paused() {
		return this.queue.paused();
	}

	/** Removes the given-up record with {@code text}; returns its item, or null. */
	private T removeGivenUp(String text) {
		Objects.requireNonNull(text, "text");
		GivenUp<T> record = record(text);
		GivenUp<T> removed = (record != null) ? this.givenUp.remove(record.item()) : null;
		return (removed != null) ? removed.item() : null;
	}

	/** The queue's item whose text is {@code text}, in each state; empty if none. */
	private List<Sighting<T>> sightings(String text) {
		if (this.codec != null) {
			T item = decodeOrNull(text);
			return (item != null && has(item, text)) ? this.queue.find(item) : List.of();
		}
		// The text as the item itself (a queue of strings) first: no scan.
		List<Sighting<T>> seen = this.queue.find(text);
		if (!seen.isEmpty() && has(seen.get(0).item(), text)) {
			return seen;
		}
		T item = this.queue.scan((candidate) -> has(candidate, text));
		return (item != null) ? this.queue.find(item) : List.of();
	}

	/** The given-up record whose item's text is {@code text}, or null. */
	private GivenUp<T> record(String text) {
		if (this.codec != null) {
			T item = decodeOrNull(text);
			GivenUp<T> record = (item != null) ? this.givenUp.get(item) : null;
			return (record != null && has(record.item(), text)) ? record : null;
		}
		GivenUp<T> record = this.givenUp.get(text);
		return (record != null && has(record.item(), text)) ? record : this.givenUp.find((item) -> has(item, text));
	}

	private boolean has(T item, String text) {
		return text.equals(text(item));
	}

	private String text(T item) {
		if (this.codec != null) {
			try {
				return this.codec.encode(item);
			}
			catch (RuntimeException ex) {
				// An item of another type, given up because the worker could not take it
				// (kept as it came): shown as text rather than failing every list.
				return String.valueOf(item);
			}
		}
		return String.valueOf(item);
	}

	/** The item a text decodes to; null where it cannot be decoded, so no item has it. */
	private T decodeOrNull(String text) {
		try {
			return this.codec.decode(text);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private ItemView view(Sighting<T> seen, Clocks at) {
		T item = seen.item();
		boolean processing = seen.state() == ItemState.PROCESSING;
		return new ItemView(text(item), seen.state(), seen.priority(), at.wall(seen.atNanos()),
				processing ? instance() : null, null, false,
				(this.attempts != null) ? this.attempts.applyAsInt(item) : -1, null);
	}

	private ItemView view(GivenUp<T> record) {
		return new ItemView(text(record.item()), ItemState.GIVEN_UP, 0, record.givenUpAt(), instance(), null, false,
				record.attempts(), record.reason());
	}

	/**
	 * What an inspector shows beyond the queue's own state, set by the builder.
	 *
	 * @param <T> the item type
	 * @param codec the items' codec, or {@code null} for none
	 * @param givenUp how many given-up items to keep, and for how long
	 * @param attempts the rate limiter's count of an item, or {@code null} for none
	 */
	record Options<T>(ItemCodec<T> codec, GivenUpBound givenUp, ToIntFunction<? super T> attempts) {
	}

	/**
	 * One item in one state as the queue saw it under its lock.
	 *
	 * @param <T> the item type
	 * @param item the item
	 * @param state its state
	 * @param priority its priority in that state
	 * @param atNanos when it became ready, was handed out or falls due, on the queue's
	 * clock, or {@link DelayingWorkQueue#UNDATED}
	 */
	record Sighting<T>(T item, ItemState state, int priority, long atNanos) {
	}

	/** The queue's clock and the wall clock read together, once per call. */
	private static final class Clocks {

		private final long nowNanos;

		private final Instant now;

		Clocks(Clock clock) {
			this.nowNanos = clock.nanoTime();
			this.now = clock.instant();
		}

		Instant wall(long atNanos) {
			return (atNanos == DelayingWorkQueue.UNDATED) ? this.now : this.now.plusNanos(atNanos - this.nowNanos);
		}

	}

	/** This process's name, read once, when first asked. */
	private static final class Instance {

		static final String NAME = ProcessHandle.current().pid() + "@" + hostName();

		private static String hostName() {
			try {
				return InetAddress.getLocalHost().getHostName();
			}
			catch (UnknownHostException ex) {
				return "localhost";
			}
		}

	}

}
