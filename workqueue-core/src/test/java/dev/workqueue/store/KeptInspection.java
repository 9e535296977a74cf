package dev.workqueue.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;

/**
 * A store's side of an inspection for tests of the handle's: given-up records in a map,
 * oldest first, items held by an instance, and the pause flag; it lists only given-up and
 * held items, and records the calls it takes. Thread-safe.
 */
final class KeptInspection implements InspectionDriver {

	private final Map<String, ItemView> givenUp = new LinkedHashMap<>();

	private final List<String> calls = new ArrayList<>();

	/** Items processing, in the order held. */
	private final Map<String, ItemView> held = new LinkedHashMap<>();

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
		List<ItemView> listed = switch (state) {
			case PROCESSING -> new ArrayList<>(this.held.values());
			case GIVEN_UP -> newestFirst();
			default -> List.of();
		};
		return listed.subList(Math.min(offset, listed.size()), Math.min(offset + limit, listed.size()));
	}

	private List<ItemView> newestFirst() {
		List<ItemView> newestFirst = new ArrayList<>(this.givenUp.values());
		Collections.reverse(newestFirst);
		return newestFirst;
	}

	@Override
	public synchronized List<ItemView> find(String encoded) {
		this.calls.add("find " + encoded);
		return Stream.of(this.held.get(encoded), this.givenUp.get(encoded)).filter(Objects::nonNull).toList();
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
	public synchronized boolean deleteGivenUp(String encoded, Instant givenUpAt) {
		this.calls.add("delete " + encoded);
		ItemView record = this.givenUp.get(encoded);
		return record != null && (givenUpAt == null || record.at().equals(givenUpAt))
				&& this.givenUp.remove(encoded) != null;
	}

	@Override
	public synchronized void pause(boolean paused) {
		this.paused = paused;
	}

	@Override
	public synchronized boolean paused() {
		return this.paused;
	}

	/**
	 * Marks an item processing, as the store shows it.
	 * @param encoded the item's encoding
	 * @param holder the instance that holds it
	 */
	synchronized void hold(String encoded, String holder) {
		this.held.put(encoded, new ItemView(encoded, ItemState.PROCESSING, 0, Instant.EPOCH, holder,
				Duration.ofSeconds(30), false, -1, null));
	}

	/** The calls taken that read or delete, in order. */
	synchronized List<String> calls() {
		return List.copyOf(this.calls);
	}

}
