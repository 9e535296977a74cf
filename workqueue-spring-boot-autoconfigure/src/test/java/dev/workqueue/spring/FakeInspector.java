package dev.workqueue.spring;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.inspect.QueueInspector;

/**
 * A {@link QueueInspector} for tests of what the starter does with one: it records the
 * given-up items it is asked to keep, counts them, keeps a pause flag, and throws
 * {@link #failure} from each of those while it is set, as a store out of reach would. Its
 * other methods are not used by the starter and throw.
 */
public final class FakeInspector implements QueueInspector {

	/** The given-up items kept, in order. */
	public final List<Kept> kept = new CopyOnWriteArrayList<>();

	/** What every method throws while set, as a store out of reach. */
	public volatile RuntimeException failure;

	/** Whether the queue is paused in its store. */
	public volatile boolean paused;

	@Override
	public String backend() {
		return "fake";
	}

	@Override
	public String instance() {
		return "test";
	}

	@Override
	public List<ItemView> items(ItemState state, int offset, int limit) {
		throw new UnsupportedOperationException();
	}

	@Override
	public List<ItemView> find(String text) {
		throw new UnsupportedOperationException();
	}

	@Override
	public int givenUpCount() {
		check();
		return this.kept.size();
	}

	@Override
	public void keepGivenUp(Object item, int attempts, String reason) {
		check();
		this.kept.add(new Kept(item, attempts, reason));
	}

	@Override
	public boolean readsText() {
		throw new UnsupportedOperationException();
	}

	@Override
	public Optional<Object> item(String text) {
		throw new UnsupportedOperationException();
	}

	@Override
	public Optional<Object> takeGivenUp(String text) {
		throw new UnsupportedOperationException();
	}

	@Override
	public boolean deleteGivenUp(String text) {
		throw new UnsupportedOperationException();
	}

	@Override
	public void pause() {
		check();
		this.paused = true;
	}

	@Override
	public void resume() {
		check();
		this.paused = false;
	}

	@Override
	public boolean paused() {
		check();
		return this.paused;
	}

	private void check() {
		RuntimeException failure = this.failure;
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * One {@link #keepGivenUp} call.
	 *
	 * @param item the item
	 * @param attempts its failed attempts
	 * @param reason the reason given
	 */
	public record Kept(Object item, int attempts, String reason) {

	}

}
