package dev.workqueue.console;

import java.util.List;

/**
 * The recent rates of a queue's adds and retries, per second, oldest first, one per
 * sampling interval.
 *
 * @param intervalSeconds the seconds between two samples
 * @param adds adds per second; empty when the queue's adds are not counted (no Micrometer
 * {@code MeterRegistry})
 * @param retries retries per second
 */
public record ConsoleRates(int intervalSeconds, List<Double> adds, List<Double> retries) {

}
