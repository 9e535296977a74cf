package dev.workqueue.sample;

import java.util.List;
import java.util.Map;

import dev.workqueue.RateLimitingQueue;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * The webhook API: stage payloads for targets and queue the targets for delivery. A
 * payload is staged in the {@link Outbox} before its target is queued, so the worker that
 * takes the target finds it.
 */
@RestController
@RequestMapping("/webhooks")
class WebhookController {

	private static final int MAX_BURST = 100_000;

	private final Outbox outbox;

	private final DeliveryLedger ledger;

	private final RateLimitingQueue<String> deliveries;

	WebhookController(Outbox outbox, DeliveryLedger ledger,
			@Qualifier(WebhookWorkers.DELIVERIES) RateLimitingQueue<String> deliveries) {
		this.outbox = outbox;
		this.ledger = ledger;
		this.deliveries = deliveries;
	}

	@PostMapping
	@ResponseStatus(HttpStatus.ACCEPTED)
	Map<String, Object> enqueue(@RequestBody WebhookRequest request) {
		request.validate();
		int pending = this.outbox.stage(request.targetId(), request.payload());
		this.deliveries.add(request.targetId());
		return Map.of("targetId", request.targetId(), "pending", pending);
	}

	/**
	 * Stages {@code count} payloads spread over {@code targets} targets: the queue holds
	 * each target once, however many payloads wait for it.
	 */
	@PostMapping("/burst")
	@ResponseStatus(HttpStatus.ACCEPTED)
	Map<String, Object> burst(@RequestParam int count, @RequestParam(defaultValue = "10") int targets) {
		if (count < 1 || count > MAX_BURST) {
			throw new InvalidRequestException("count", "must be between 1 and " + MAX_BURST + ", was " + count);
		}
		if (targets < 1 || targets > count) {
			throw new InvalidRequestException("targets", "must be between 1 and count, was " + targets);
		}
		for (int i = 0; i < count; i++) {
			String targetId = "burst-" + (i % targets);
			this.outbox.stage(targetId, "burst payload " + i);
			this.deliveries.add(targetId);
		}
		return Map.of("staged", count, "targets", targets, "depth", this.deliveries.size());
	}

	@GetMapping("/deliveries")
	List<Delivery> deliveries() {
		return this.ledger.deliveries();
	}

	@GetMapping("/dead-letters")
	List<DeadLetter> deadLetters() {
		return this.ledger.deadLetters();
	}

	@GetMapping("/totals")
	DeliveryTotals totals() {
		return this.ledger.totals();
	}

}
