package dev.workqueue.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.workqueue.spring.worker.InvalidQueueWorkerException;

/**
 * Reports an {@link InvalidQueueWorkerException} as a start-up failure: which
 * {@code @QueueWorker} method is wrong and how a worker method must look.
 */
class InvalidQueueWorkerFailureAnalyzer extends AbstractFailureAnalyzer<InvalidQueueWorkerException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidQueueWorkerException cause) {
		return new FailureAnalysis(cause.getMessage(), "Fix the method " + cause.getWorker()
				+ ": a @QueueWorker method takes the item (and, on a priority queue, maybe an int priority "
				+ "as second parameter), returns void or WorkResult, is on a singleton bean, names a queue configured under "
				+ "workqueue.queues or defined as a RateLimitingQueue bean, and has a concurrency of at least 1.",
				cause);
	}

}
