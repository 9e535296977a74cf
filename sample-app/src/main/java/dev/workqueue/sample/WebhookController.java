package dev.workqueue.sample;

import java.util.List;
import java.util.Map;

import dev.workqueue.RateLimitingQueue;

import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * The webhook API: stage payloads for targets and queue the targets for delivery, through
 * the {@link WebhookIntake} (in one transaction with the {@code postgres} profile).
 * <p>
 * A target is queued with the request's priority on a priority queue; a burst with
 * {@link #BURST_PRIORITY}, so that the webhooks posted meanwhile overtake it.
 */
@RestController
@RequestMapping("/webhooks")
class WebhookController {

	/**
	 * The most payloads one burst stages: each is held by the outbox (in memory with the
	 * default profile) until delivered, so one request must not stage without bound.
	 */
	static final int MAX_BURST = 10_000;

	/** The priority of the targets of a burst: below that of a webhook, 0 by default. */
	static final int BURST_PRIORITY = -10;

	private final WebhookIntake intake;

	private final DeliveryLedger ledger;

	private final RateLimitingQueue<String> deliveries;

	WebhookController(WebhookIntake intake, DeliveryLedger ledger,
			@Qualifier(WebhookWorkers.DELIVERIES) RateLimitingQueue<String> deliveries) {
		this.intake = intake;
		this.ledger = ledger;
		this.deliveries = deliveries;
	}

	/**
	 * Stages a webhook's payload and queues its target. JSON only: anything else is
	 * answered {@code 415}, so that a cross-site form (which needs no preflight) cannot
	 * post one.
	 */
	@PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
	@ResponseStatus(HttpStatus.ACCEPTED)
	Map<String, Object> enqueue(@RequestBody JsonNode body) {
		WebhookRequest request = WebhookRequest.read(body);
		request.validate();
		int pending = this.intake.accept(request.targetId(), request.payload(), request.priority());
		return Map.of("targetId", request.targetId(), "pending", pending, "priority", request.priority());
	}

	/**
	 * Stages {@code count} payloads spread over {@code targets} targets: the queue holds
	 * each target once, however many payloads wait for it. The targets are queued with
	 * {@link #BURST_PRIORITY}.
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
		this.intake.acceptBurst(count, targets, BURST_PRIORITY);
		return Map.of("staged", count, "targets", targets, "depth", this.deliveries.size(), "priority", BURST_PRIORITY);
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
