package dev.workqueue.sample;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Component;

/**
 * This instance's record: recent deliveries, the dead letters and the totals. The
 * payloads waiting per target are in the {@link Outbox}. Thread-safe: every method is
 * synchronized on the ledger.
 */
@Component
public class DeliveryLedger {

	private static final int RECENT_DELIVERIES = 1_000;

	private final Map<String, Delivery> deliveries = new LinkedHashMap<>() {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Delivery> eldest) {
			return size() > RECENT_DELIVERIES;
		}

	};

	private final List<DeadLetter> deadLetters = new ArrayList<>();

	private long lastDeliveryId;

	private long deliveredPayloads;

	private long droppedPayloads;

	/**
	 * Records that {@code payloads} payloads were delivered to the target in one batch.
	 * @param targetId the target
	 * @param payloads how many payloads were delivered
	 * @return the delivery
	 */
	public synchronized Delivery recordDelivered(String targetId, int payloads) {
		Delivery delivery = new Delivery("d-" + (++this.lastDeliveryId), targetId, payloads, false);
		this.deliveries.put(delivery.id(), delivery);
		this.deliveredPayloads += payloads;
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
	 * Records a given-up item.
	 * @param queue the queue the item came from
	 * @param item the item
	 * @param attempts how many attempts were made
	 * @param reason the last failure's message
	 * @param droppedPayloads how many payloads were dropped with it
	 * @return the dead letter
	 */
	public synchronized DeadLetter deadLetter(String queue, String item, int attempts, String reason,
			int droppedPayloads) {
		DeadLetter deadLetter = new DeadLetter(queue, item, attempts, reason, droppedPayloads);
		this.deadLetters.add(deadLetter);
		this.droppedPayloads += droppedPayloads;
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

	/**
	 * Returns what this instance delivered and gave up since it started.
	 * @return the totals
	 */
	public synchronized DeliveryTotals totals() {
		return new DeliveryTotals(this.lastDeliveryId, this.deliveredPayloads, this.deadLetters.size(),
				this.droppedPayloads);
	}

}
