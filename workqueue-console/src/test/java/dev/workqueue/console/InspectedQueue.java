package dev.workqueue.console;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;

/**
 * A queue of strings whose items the test lays out by state, and that records what the
 * console does to it: a stand-in for a backend's {@link QueueInspector}. Its figures are
 * the lengths of its lists. Nothing takes items from it.
 */
final class InspectedQueue implements RateLimitingQueue<Object>, QueueInspector {

	static final Instant AT = Instant.parse("2026-01-02T03:04:05Z");

	/** How the text of an item that cannot be decoded starts. */
	static final String UNREADABLE = "unreadable-";

	private final String name;

	private final boolean readsText;

	private volatile String backend = "memory";

	private final Map<ItemState, List<ItemView>> items = new EnumMap<>(ItemState.class);

	private final List<Object> forgotten = new ArrayList<>();

	/** Why an add fails, {@code null} while adds work. */
	private volatile String addFails;

	private volatile boolean paused;

	private volatile boolean givesUpOnAdd;

	private volatile String unreachable;

	private volatile boolean itemsUnreachable;

	private final AtomicInteger statsReads = new AtomicInteger();

	private volatile CountDownLatch statsGate = new CountDownLatch(0);

	InspectedQueue(String name, boolean readsText) {
		this.name = name;
		this.readsText = readsText;
		for (ItemState state : ItemState.values()) {
			this.items.put(state, new ArrayList<>());
		}
	}

	/**
	 * Why an item was given up: as a worker's exception often does, it names the item.
	 */
	static String reason(String text) {
		return "java.lang.IllegalStateException: cannot deliver " + text;
	}

	/** Lays out an item in a state. */
	synchronized InspectedQueue put(String text, ItemState state) {
		this.items.get(state)
			.add(new ItemView(text, state, 0, AT, (state == ItemState.PROCESSING) ? "host-1" : null,
					(state == ItemState.PROCESSING) ? Duration.ofSeconds(3) : null, false,
					(state == ItemState.GIVEN_UP) ? 11 : 0, (state == ItemState.GIVEN_UP) ? reason(text) : null));
		return this;
	}

	/** Makes the queue's figures unreadable, as a store out of reach. */
	InspectedQueue unreachable(String message) {
		this.unreachable = message;
		return this;
	}

	/** Makes the queue's items unreadable while its figures can still be read. */
	void itemsUnreachable(boolean unreachable) {
		this.itemsUnreachable = unreachable;
	}

	/** How many times {@link #stats()} was called. */
	int statsReads() {
		return this.statsReads.get();
	}

	/** Makes {@link #stats()} wait, once called, until the gate opens: a slow store. */
	void holdStats(CountDownLatch gate) {
		this.statsGate = gate;
	}

	synchronized List<Object> forgotten() {
		return List.copyOf(this.forgotten);
	}

	synchronized List<String> texts(ItemState state) {
		return this.items.get(state).stream().map(ItemView::text).toList();
	}

	/**
	 * Makes each add give its item up again at once, as a worker that took it and failed
	 * before the add returned: its given-up record is replaced by one an hour after
	 * {@link #AT}.
	 */
	void givesUpOnAdd(boolean givesUp) {
		this.givesUpOnAdd = givesUp;
	}

	/** Makes adds fail, as a store out of reach, with a message that names the item. */
	void addsFail(boolean fail) {
		this.addFails = fail ? "store out of reach while adding " : null;
	}

	/**
	 * {@inheritDoc} As a PostgreSQL queue, refuses an item whose text holds a NUL (which
	 * no column can store) as a bad argument.
	 */
	@Override
	public synchronized void add(Object item) {
		if (this.addFails != null) {
			throw new IllegalStateException(this.addFails + item);
		}
		if (((String) item).indexOf('\0') >= 0) {
			throw new IllegalArgumentException("item must not encode to text holding a NUL character (U+0000)");
		}
		put((String) item, ItemState.READY);
		if (this.givesUpOnAdd) {
			this.items.get(ItemState.GIVEN_UP).removeIf((view) -> view.text().equals(item));
			this.items.get(ItemState.GIVEN_UP)
				.add(new ItemView((String) item, ItemState.GIVEN_UP, 0, AT.plusSeconds(3600), null, null, false, 12,
						reason((String) item)));
		}
	}

	@Override
	public void addAfter(Object item, Duration delay) {
		throw new UnsupportedOperationException();
	}

	@Override
	public void addRateLimited(Object item) {
		throw new UnsupportedOperationException();
	}

	@Override
	public synchronized void forget(Object item) {
		this.forgotten.add(item);
	}

	@Override
	public int numRequeues(Object item) {
		return 0;
	}

	@Override
	public Object get() {
		throw new UnsupportedOperationException();
	}

	@Override
	public Object poll(Duration timeout) {
		throw new UnsupportedOperationException();
	}

	@Override
	public void done(Object item) {
		throw new UnsupportedOperationException();
	}

	@Override
	public synchronized int size() {
		return this.items.get(ItemState.READY).size();
	}

	@Override
	public WorkQueueStats stats() {
		this.statsReads.incrementAndGet();
		try {
			this.statsGate.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		return figures();
	}

	private synchronized WorkQueueStats figures() {
		if (this.unreachable != null) {
			throw new IllegalStateException(this.unreachable);
		}
		return WorkQueueStats.builder()
			.depth(size())
			.processing(this.items.get(ItemState.PROCESSING).size())
			.waiting(this.items.get(ItemState.WAITING).size())
			.retries(7)
			.longestRunningProcessorNanos(2_500_000_000L)
			.build();
	}

	@Override
	public void shutDown() {
	}

	@Override
	public void shutDownWithDrain() {
	}

	@Override
	public boolean isShuttingDown() {
		return false;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public String backend() {
		return this.backend;
	}

	/**
	 * Names the backend it stands for (default {@code memory}).
	 * @param backend the name
	 * @return this queue
	 */
	InspectedQueue backend(String backend) {
		this.backend = backend;
		return this;
	}

	@Override
	public String instance() {
		return "host-1";
	}

	@Override
	public synchronized List<ItemView> items(ItemState state, int offset, int limit) {
		if (this.itemsUnreachable) {
			throw new IllegalStateException("store out of reach");
		}
		List<ItemView> listed = this.items.get(state);
		return List.copyOf(listed.subList(Math.min(offset, listed.size()), Math.min(offset + limit, listed.size())));
	}

	@Override
	public synchronized List<ItemView> find(String text) {
		List<ItemView> found = new ArrayList<>();
		this.items.values()
			.forEach((listed) -> listed.stream().filter((item) -> item.text().equals(text)).forEach(found::add));
		return found;
	}

	@Override
	public synchronized int givenUpCount() {
		return this.items.get(ItemState.GIVEN_UP).size();
	}

	@Override
	public void keepGivenUp(Object item, int attempts, String reason) {
		throw new UnsupportedOperationException();
	}

	@Override
	public boolean readsText() {
		return this.readsText;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A text that starts with {@link #UNREADABLE} cannot be decoded, and the codec's
	 * message quotes it, as a number codec's would.
	 */
	@Override
	public synchronized Optional<Object> item(String text) {
		if (text.startsWith(UNREADABLE)) {
			NumberFormatException cause = new NumberFormatException("For input string: \"" + text + "\"");
			throw new IllegalArgumentException("text cannot be decoded by the queue's codec: " + cause.getMessage(),
					cause);
		}
		if (this.readsText) {
			return Optional.of(text);
		}
		return find(text).stream().findFirst().map(ItemView::text);
	}

	@Override
	public synchronized Optional<Object> takeGivenUp(String text) {
		return this.items.get(ItemState.GIVEN_UP).removeIf((item) -> item.text().equals(text)) ? Optional.of(text)
				: Optional.empty();
	}

	@Override
	public synchronized boolean deleteGivenUp(String text) {
		return this.items.get(ItemState.GIVEN_UP).removeIf((item) -> item.text().equals(text));
	}

	@Override
	public void pause() {
		this.paused = true;
	}

	@Override
	public void resume() {
		this.paused = false;
	}

	@Override
	public boolean paused() {
		return this.paused;
	}

}
