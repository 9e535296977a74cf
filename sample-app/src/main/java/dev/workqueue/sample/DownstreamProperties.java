package dev.workqueue.sample;

import java.time.Duration;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How the simulated webhook receiver behaves ({@code sample.downstream.*}).
 *
 * @param failureRate share of delivery attempts that fail at random, from 0 to 1
 * @param latency how long each delivery attempt takes
 * @param receiptPolls how many receipt polls a delivery needs before its receipt is
 * confirmed
 * @param flakyTargets targets whose first delivery attempt fails, then succeed
 * @param unreachableTargets targets whose every delivery attempt fails
 */
@ConfigurationProperties("sample.downstream")
public record DownstreamProperties(@DefaultValue("0.2") double failureRate, @DefaultValue("50ms") Duration latency,
		@DefaultValue("2") int receiptPolls, @DefaultValue Set<String> flakyTargets,
		@DefaultValue Set<String> unreachableTargets) {

	public DownstreamProperties {
		if (!(failureRate >= 0 && failureRate <= 1)) {
			throw new IllegalArgumentException(
					"sample.downstream.failure-rate must be between 0 and 1, was " + failureRate);
		}
		if (latency.isNegative()) {
			throw new IllegalArgumentException("sample.downstream.latency must not be negative, was " + latency);
		}
		if (receiptPolls < 1) {
			throw new IllegalArgumentException("sample.downstream.receipt-polls must be >= 1, was " + receiptPolls);
		}
	}

}
