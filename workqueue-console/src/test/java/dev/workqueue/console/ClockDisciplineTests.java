package dev.workqueue.console;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.workqueue.time.ClockDiscipline;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * STYLE §4 for this module: its main code reads time and waits only through
 * {@link dev.workqueue.time.Clock}.
 */
class ClockDisciplineTests {

	/** Relative to the module directory, surefire's working directory. */
	private static final Path MAIN_SOURCES = Path.of("src/main/java");

	@Test
	void mainCodeReadsTimeAndWaitsOnlyThroughTheClock() throws IOException {
		assertThat(MAIN_SOURCES).isDirectory();
		assertThat(ClockDiscipline.scan(MAIN_SOURCES, Set.of())).as("calls to be replaced by dev.workqueue.time.Clock")
			.isEmpty();
	}

}
