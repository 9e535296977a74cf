package dev.workqueue.sample;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * The outbox in this instance's memory, without the {@code redis} or {@code postgres}
 * profile: lost when the instance stops, and seen by no other instance. Thread-safe:
 * every method is synchronized on the outbox.
 */
@Component
@Profile("!redis & !postgres")
public class MemoryOutbox implements Outbox {

	private final Map<String, List<String>> waiting = new HashMap<>();

	private final Map<String, List<String>> taken = new HashMap<>();

	@Override
	public synchronized int stage(String targetId, String payload) {
		List<String> payloads = this.waiting.computeIfAbsent(targetId, (id) -> new ArrayList<>());
		payloads.add(payload);
		return payloads.size();
	}

	@Override
	public synchronized List<String> take(String targetId) {
		List<String> payloads = this.waiting.remove(targetId);
		if (payloads != null) {
			this.taken.computeIfAbsent(targetId, (id) -> new ArrayList<>()).addAll(payloads);
		}
		return List.copyOf(this.taken.getOrDefault(targetId, List.of()));
	}

	@Override
	public synchronized void delivered(String targetId) {
		this.taken.remove(targetId);
	}

	@Override
	public synchronized int drop(String targetId) {
		return size(this.taken.remove(targetId)) + size(this.waiting.remove(targetId));
	}

	private static int size(List<String> payloads) {
		return (payloads != null) ? payloads.size() : 0;
	}

}
