package dev.workqueue.sample;

/**
 * Thrown when the downstream rejects a delivery attempt; the worker retries with backoff.
 */
public class DeliveryFailedException extends RuntimeException {

	DeliveryFailedException(String message) {
		super(message);
	}

}
