package dev.workqueue.sample;

import java.time.Duration;
import java.util.List;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkItemGivenUpEvent;
import dev.workqueue.spring.WorkResult;
import dev.workqueue.spring.worker.ItemLogging;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The workers: one delivers each target's waiting payloads (a thrown exception is retried
 * with backoff until {@code max-retries}, then dead-lettered), the other polls for the
 * delivery receipt, coming back later with {@link WorkResult#requeueAfter(Duration)}
 * until it is confirmed.
 */
@Component
public class WebhookWorkers {

	/** Queue of target ids with payloads to deliver. */
	public static final String DELIVERIES = "deliveries";

	/** Queue of delivery ids whose receipt is awaited. */
	public static final String RECEIPTS = "receipts";

	private static final Logger logger = LoggerFactory.getLogger(WebhookWorkers.class);

	private final Downstream downstream;

	private final Outbox outbox;

	private final DeliveryLedger ledger;

	private final RateLimitingQueue<String> receipts;

	private final Duration receiptPollInterval;

	private final ItemLogging itemLogging;

	public WebhookWorkers(Downstream downstream, Outbox outbox, DeliveryLedger ledger,
			@Qualifier(RECEIPTS) RateLimitingQueue<String> receipts,
			@Value("${sample.receipts.poll-interval:1s}") Duration receiptPollInterval,
			@Value("${workqueue.log-items:true}") boolean logItems) {
		this.downstream = downstream;
		this.outbox = outbox;
		this.ledger = ledger;
		this.receipts = receipts;
		this.receiptPollInterval = receiptPollInterval;
		this.itemLogging = ItemLogging.of(logItems);
	}

	/**
	 * Delivers every payload waiting for {@code targetId} in one call. If the call fails,
	 * the payloads stay taken in the outbox, and the retry delivers them again.
	 * @param targetId the target
	 * @throws InterruptedException if interrupted during the call
	 */
	@QueueWorker(queue = DELIVERIES)
	public void deliver(String targetId) throws InterruptedException {
		List<String> payloads = this.outbox.take(targetId);
		if (payloads.isEmpty()) {
			return;
		}
		this.downstream.deliver(targetId, payloads);
		this.outbox.delivered(targetId);
		Delivery delivery = this.ledger.recordDelivered(targetId, payloads.size());
		this.receipts.add(delivery.id());
	}

	/**
	 * Polls for a delivery's receipt.
	 * @param deliveryId the delivery
	 * @return done once confirmed, else a requeue after the poll interval
	 */
	@QueueWorker(queue = RECEIPTS, concurrency = "${sample.receipts.workers:1}")
	public WorkResult confirmReceipt(String deliveryId) {
		if (!this.downstream.receiptConfirmed(deliveryId)) {
			return WorkResult.requeueAfter(this.receiptPollInterval);
		}
		this.ledger.confirmReceipt(deliveryId);
		return WorkResult.done();
	}

	/**
	 * Moves a given-up item to the dead letters; for a target, its payloads are dropped
	 * with it.
	 * @param event what was given up
	 */
	@EventListener
	public void onGivenUp(WorkItemGivenUpEvent event) {
		Throwable cause = event.getLastException();
		String item = String.valueOf(event.getItem());
		int dropped = DELIVERIES.equals(event.getQueueName()) ? this.outbox.drop(item) : 0;
		DeadLetter deadLetter = this.ledger.deadLetter(event.getQueueName(), item, event.getAttempts(),
				(cause != null) ? String.valueOf(cause.getMessage()) : "unknown", dropped);
		// The item and the failure's message may be anything (a multi-line text, personal
		// data): the log line shows the item as the starter does (workqueue.log-items),
		// and the reason only in GET /webhooks/dead-letters.
		logger.info("Dead-lettered item {} of queue '{}' after {} attempt(s), {} payload(s) dropped",
				this.itemLogging.describe(item), deadLetter.queue(), deadLetter.attempts(),
				deadLetter.droppedPayloads());
	}

}
