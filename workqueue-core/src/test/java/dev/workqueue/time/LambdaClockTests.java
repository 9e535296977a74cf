package dev.workqueue.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A clock given as a lambda, whose readings may be negative ({@code System::nanoTime} may
 * read so: its origin is arbitrary): waiting for a deadline far off, as a wait without a
 * timeout asks ({@code Long.MAX_VALUE}), waits rather than spins.
 */
class LambdaClockTests {

	private static final long NEGATIVE_READING = -4_000_000_000_000_000_000L;

	@Test
	void aWaitWithoutEndOnANegativeReadingWaits() throws InterruptedException {
		Clock clock = () -> NEGATIVE_READING;
		AtomicReference<Throwable> ended = new AtomicReference<>();
		Thread sleeper = new Thread(() -> {
			try {
				clock.sleepUntil(Long.MAX_VALUE);
			}
			catch (Throwable ex) {
				ended.set(ex);
			}
		}, "lambda-clock-sleeper");
		sleeper.start();
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> sleeper.getState() == Thread.State.TIMED_WAITING);
		}
		finally {
			sleeper.interrupt();
			sleeper.join(5_000);
		}
		assertThat(ended.get()).isInstanceOf(InterruptedException.class);
	}

}
