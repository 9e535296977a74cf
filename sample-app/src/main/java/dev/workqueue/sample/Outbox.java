package dev.workqueue.sample;

import java.util.List;

/**
 * The payloads waiting per target. A request stages its payload here before it queues the
 * target id, so the worker that takes the id, in whichever instance, finds it. The worker
 * {@link #take takes} the payloads, delivers them and then reports them
 * {@link #delivered}; taken payloads that were not delivered (the attempt failed, or the
 * instance stopped) are taken again, first, by the next run for the target. Only one
 * worker at a time processes a target (the queue's rule), so a payload is delivered once,
 * or again after an instance stopped between delivering and reporting it.
 */
public interface Outbox {

	/**
	 * Appends a payload to the target's waiting payloads.
	 * @param targetId the target
	 * @param payload the payload
	 * @return how many payloads now wait for the target, not counting taken ones
	 */
	int stage(String targetId, String payload);

	/**
	 * Takes the target's payloads: those taken before and not delivered, then those
	 * waiting, oldest first. They stay taken until {@link #delivered} or {@link #drop}.
	 * @param targetId the target
	 * @return the payloads, empty if none
	 */
	List<String> take(String targetId);

	/**
	 * Forgets the target's taken payloads: they were delivered.
	 * @param targetId the target
	 */
	void delivered(String targetId);

	/**
	 * Drops every payload of the target, taken or waiting.
	 * @param targetId the target
	 * @return how many payloads were dropped
	 */
	int drop(String targetId);

}
