package dev.workqueue.sample;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Component;

/**
 * The sample's state: payloads waiting per target (the outboxes), recent deliveries and
 * the dead letters. A target id is the work item: however many payloads pile up for a
 * target while it waits in the queue, one worker run delivers them together. Thread-safe:
 * every method is synchronized on the ledger.
 */
@Component
public class DeliveryLedger {

	private static final int RECENT_DELIVERIES = 1_000;

	private final Map<String, List<String>> outboxes = new HashMap<>();

	private final Map<String, Delivery> deliveries = new LinkedHashMap<>() {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Delivery> eldest) {
			return size() > RECENT_DELIVERIES;
		}

	};

	private final List<DeadLetter> deadLetters = new ArrayList<>();

	private long lastDeliveryId;

	/**
	 * Appends a payload to the target's outbox.
	 * @param targetId the target
	 * @param payload the payload
	 * @return how many payloads now wait for the target
	 */
	public synchronized int stage(String targetId, String payload) {
		List<String> outbox = this.outboxes.computeIfAbsent(targetId, (id) -> new ArrayList<>());
		outbox.add(payload);
		return outbox.size();
	}

	/**
	 * Returns a copy of the payloads waiting for the target.
	 * @param targetId the target
	 * @return the payloads, oldest first
	 */
	public synchronized List<String> outbox(String targetId) {
		return List.copyOf(this.outboxes.getOrDefault(targetId, List.of()));
	}

	/**
	 * Records that the oldest {@code payloads} payloads of the target were delivered;
	 * payloads staged meanwhile stay in the outbox.
	 * @param targetId the target
	 * @param payloads how many payloads were delivered
	 * @return the delivery
	 */
	public synchronized Delivery recordDelivered(String targetId, int payloads) {
		List<String> outbox = this.outboxes.get(targetId);
		outbox.subList(0, payloads).clear();
		if (outbox.isEmpty()) {
			this.outboxes.remove(targetId);
		}
		Delivery delivery = new Delivery("d-" + (++this.lastDeliveryId), targetId, payloads, false);
		this.deliveries.put(delivery.id(), delivery);
		return delivery;
	}

	/**
	 * Marks a delivery's receipt as confirmed.
	 * @param deliveryId the delivery
	 */
	public synchronized void confirmReceipt(String deliveryId) {
		this.deliveries.computeIfPresent(deliveryId, (id, delivery) -> delivery.confirmed());
	}

	/**
	 * Records a given-up item; for a target, its waiting payloads are dropped with it.
	 * @param queue the queue the item came from
	 * @param item the item
	 * @param attempts how many attempts were made
	 * @param reason the last failure's message
	 * @return the dead letter
	 */
	public synchronized DeadLetter deadLetter(String queue, String item, int attempts, String reason) {
		List<String> dropped = WebhookWorkers.DELIVERIES.equals(queue) ? this.outboxes.remove(item) : null;
		DeadLetter deadLetter = new DeadLetter(queue, item, attempts, reason, (dropped != null) ? dropped.size() : 0);
		this.deadLetters.add(deadLetter);
		return deadLetter;
	}

	/**
	 * Returns the most recent deliveries, oldest first.
	 * @return the deliveries
	 */
	public synchronized List<Delivery> deliveries() {
		return List.copyOf(this.deliveries.values());
	}

	/**
	 * Returns every dead letter, oldest first.
	 * @return the dead letters
	 */
	public synchronized List<DeadLetter> deadLetters() {
		return List.copyOf(this.deadLetters);
	}

}
