package dev.workqueue.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;

/**
 * A store's side of an inspection for tests of the handle's: given-up records in a map,
 * oldest first, and the pause flag; it lists only given-up items, and records the calls
 * it takes. Thread-safe.
 */
final class KeptInspection implements InspectionDriver {

	private final Map<String, ItemView> givenUp = new LinkedHashMap<>();

	private final List<String> calls = new ArrayList<>();

	private boolean paused;

	@Override
	public String backend() {
		return "fake";
	}

	@Override
	public String instance() {
		return "fake-1";
	}

	@Override
	public synchronized List<ItemView> items(ItemState state, int offset, int limit) {
		this.calls.add("items " + state.label() + " " + offset + " " + limit);
		if (state != ItemState.GIVEN_UP) {
			return List.of();
		}
		List<ItemView> newestFirst = new ArrayList<>(this.givenUp.values());
		Collections.reverse(newestFirst);
		return newestFirst.subList(Math.min(offset, newestFirst.size()), Math.min(offset + limit, newestFirst.size()));
	}

	@Override
	public synchronized List<ItemView> find(String encoded) {
		this.calls.add("find " + encoded);
		ItemView view = this.givenUp.get(encoded);
		return (view != null) ? List.of(view) : List.of();
	}

	@Override
	public synchronized int givenUpCount() {
		return this.givenUp.size();
	}

	@Override
	public synchronized void keepGivenUp(String encoded, int attempts, String reason) {
		this.givenUp.remove(encoded);
		this.givenUp.put(encoded,
				new ItemView(encoded, ItemState.GIVEN_UP, 0, Instant.EPOCH, instance(), null, false, attempts, reason));
	}

	@Override
	public synchronized boolean deleteGivenUp(String encoded) {
		this.calls.add("delete " + encoded);
		return this.givenUp.remove(encoded) != null;
	}

	@Override
	public synchronized void pause(boolean paused) {
		this.paused = paused;
	}

	@Override
	public synchronized boolean paused() {
		return this.paused;
	}

	/** The calls taken that read or delete, in order. */
	synchronized List<String> calls() {
		return List.copyOf(this.calls);
	}

}
