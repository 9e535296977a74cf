package dev.workqueue.sample;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

import org.springframework.stereotype.Component;

/**
 * A simulated webhook receiver: each attempt takes {@code latency} and fails at
 * {@code failure-rate}, always for unreachable targets, and the first time for flaky
 * ones. Receipts are confirmed on the {@code receipt-polls}-th poll. Thread-safe.
 */
@Component
public class Downstream {

	private final DownstreamProperties properties;

	private final Clock clock = Clock.system();

	private final Map<String, Boolean> flakyTargetsFailedOnce = new ConcurrentHashMap<>();

	private final Map<String, Integer> receiptPolls = new ConcurrentHashMap<>();

	public Downstream(DownstreamProperties properties) {
		this.properties = properties;
	}

	/**
	 * Delivers {@code payloads} to {@code targetId}.
	 * @param targetId the receiving target
	 * @param payloads what to deliver, in order
	 * @throws DeliveryFailedException if the target rejected the attempt
	 * @throws InterruptedException if interrupted while the call is in flight
	 */
	public void deliver(String targetId, List<String> payloads) throws InterruptedException {
		this.clock.sleepUntil(Nanos.add(this.clock.nanoTime(), Nanos.of(this.properties.latency())));
		if (this.properties.unreachableTargets().contains(targetId)) {
			throw new DeliveryFailedException(targetId + " is unreachable");
		}
		if (this.properties.flakyTargets().contains(targetId)
				&& this.flakyTargetsFailedOnce.putIfAbsent(targetId, Boolean.TRUE) == null) {
			throw new DeliveryFailedException(targetId + " answered 503");
		}
		if (ThreadLocalRandom.current().nextDouble() < this.properties.failureRate()) {
			throw new DeliveryFailedException(targetId + " timed out");
		}
	}

	/**
	 * Asks whether the receipt of a delivery has arrived; each call is one poll.
	 * @param deliveryId the delivery
	 * @return whether the receipt is confirmed
	 */
	public boolean receiptConfirmed(String deliveryId) {
		int polls = this.receiptPolls.merge(deliveryId, 1, Integer::sum);
		if (polls >= this.properties.receiptPolls()) {
			this.receiptPolls.remove(deliveryId);
			return true;
		}
		return false;
	}

}
