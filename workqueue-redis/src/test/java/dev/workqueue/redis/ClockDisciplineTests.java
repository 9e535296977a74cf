package dev.workqueue.redis;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.workqueue.time.ClockDiscipline;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * STYLE §4 for this module: its main code reads time and waits only through
 * {@link dev.workqueue.time.Clock} (the Redis server's time is read by the scripts).
 * <p>
 * One file is allowed a wait of its own: {@code RedisLink} bounds each command's round
 * trip to the server by the command timeout, in real time whatever the queue's clock (a
 * {@code FakeClock} must not stop a network timeout from firing), as Lettuce's
 * synchronous API would.
 */
class ClockDisciplineTests {

	private static final Path MAIN_SOURCES = Path.of("src/main/java");

	@Test
	void mainCodeReadsTimeAndWaitsOnlyThroughTheClock() throws IOException {
		assertThat(ClockDiscipline.scan(MAIN_SOURCES, Set.of(Path.of("dev/workqueue/redis/RedisLink.java"))))
			.as("calls to be replaced by dev.workqueue.time.Clock")
			.isEmpty();
	}

}
