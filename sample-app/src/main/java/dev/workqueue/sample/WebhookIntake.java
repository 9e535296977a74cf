package dev.workqueue.sample;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Takes in webhooks: stages each payload in the {@link Outbox}, then queues its target
 * for delivery, so the worker that takes the target finds the payload.
 * <p>
 * With the {@code postgres} profile both writes go to the application's database in one
 * transaction ({@link Transactional}: the outbox's insert and the queue's add share the
 * connection Spring's transaction holds): a request that fails midway leaves neither the
 * payload nor the queued target, and no worker sees the target before its payload is
 * committed. Without a database (the memory and redis profiles) there is no transaction
 * manager, and the annotation changes nothing.
 * <p>
 * A target is queued with the request's priority when {@code deliveries} is a
 * {@link PriorityQueue} ({@code workqueue.queues.deliveries.priority.enabled}); on a
 * queue without priorities every target lines up in order.
 */
@Service
public class WebhookIntake {

	private final Outbox outbox;

	private final RateLimitingQueue<String> deliveries;

	WebhookIntake(Outbox outbox, @Qualifier(WebhookWorkers.DELIVERIES) RateLimitingQueue<String> deliveries) {
		this.outbox = outbox;
		this.deliveries = deliveries;
	}

	/**
	 * Stages a payload and queues its target.
	 * @param targetId the target
	 * @param payload the payload
	 * @param priority the target's priority, on a priority queue
	 * @return how many payloads now wait for the target
	 */
	@Transactional
	public int accept(String targetId, String payload, int priority) {
		int pending = this.outbox.stage(targetId, payload);
		queue(targetId, priority);
		return pending;
	}

	/**
	 * Stages {@code count} payloads spread over {@code targets} targets, all in one
	 * transaction: the queue holds each target once, however many payloads wait for it.
	 * @param count how many payloads
	 * @param targets over how many targets
	 * @param priority the targets' priority, on a priority queue
	 */
	@Transactional
	public void acceptBurst(int count, int targets, int priority) {
		for (int i = 0; i < count; i++) {
			String targetId = "burst-" + (i % targets);
			this.outbox.stage(targetId, "burst payload " + i);
			queue(targetId, priority);
		}
	}

	private void queue(String targetId, int priority) {
		if (this.deliveries instanceof PriorityQueue<String> priorities) {
			priorities.add(targetId, priority);
		}
		else {
			this.deliveries.add(targetId);
		}
	}

}
