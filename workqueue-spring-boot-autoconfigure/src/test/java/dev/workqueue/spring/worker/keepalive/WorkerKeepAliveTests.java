package dev.workqueue.spring.worker.keepalive;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests that a worker-only application stays up while its workers run, and stops on
 * SIGTERM after draining: the application runs as a process of its own, as a user's does.
 */
class WorkerKeepAliveTests {

	/** Start-up of a JVM with Spring on a busy machine of 2 cores. */
	private static final Duration START_UP = Duration.ofSeconds(90);

	/** The JVM's exit status when SIGTERM ends it: 128 + 15. */
	private static final int SIGTERM_EXIT = 143;

	private final List<String> output = new CopyOnWriteArrayList<>();

	private Process process;

	private Thread reader;

	@AfterEach
	void killProcess() {
		if (this.process != null) {
			this.process.destroyForcibly();
		}
	}

	@Test
	void workerOnlyApplicationStaysUpAfterItsWorkAndDrainsOnSigterm() throws Exception {
		start("--hold=true");
		awaitLine(WorkerOnlyApplication.PROCESSED);
		awaitLine(WorkerOnlyApplication.HOLDING);
		// main() has returned long since: only the workers run now.
		await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(this.process::isAlive);
		assertThat(this.output).doesNotContain(WorkerOnlyApplication.DRAINED);
		// SIGTERM, through the handle: Process.destroy() also closes the output pipe,
		// and the lines of the drain would be lost.
		assertThat(this.process.toHandle().destroy()).as("SIGTERM sent").isTrue();
		awaitExit(Duration.ofSeconds(30));
		assertThat(this.process.exitValue()).as("exit status, output %s", this.output).isEqualTo(SIGTERM_EXIT);
		assertThat(this.output).contains(WorkerOnlyApplication.DRAINED);
	}

	@Test
	void withoutKeepAliveTheApplicationExitsAfterItsWork() throws Exception {
		start("--workqueue.workers.keep-alive=false");
		awaitExit(START_UP);
		assertThat(this.process.exitValue()).as("exit status, output %s", this.output).isZero();
		assertThat(this.output).contains(WorkerOnlyApplication.PROCESSED);
	}

	/** Waits for the process to exit and for its output to be read to the end. */
	private void awaitExit(Duration timeout) {
		await().atMost(timeout).until(() -> !this.process.isAlive() && !this.reader.isAlive());
	}

	private void awaitLine(String line) {
		await().atMost(START_UP)
			.untilAsserted(() -> assertThat(this.output).as("output of a live process")
				.contains(line)
				.satisfies((output) -> assertThat(this.process.isAlive()).as("alive, output %s", output).isTrue()));
	}

	private void start(String... args) throws IOException {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
						"-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
						WorkerOnlyApplication.class.getName(), "--spring.main.banner-mode=off",
						"--logging.level.root=WARN", "--workqueue.queues.jobs.concurrency=2"));
		command.addAll(List.of(args));
		this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
		this.reader = new Thread(this::readOutput, "keep-alive-test-output");
		this.reader.setDaemon(true);
		this.reader.start();
	}

	private void readOutput() {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			lines.lines().forEach(this.output::add);
		}
		catch (IOException | UncheckedIOException ex) {
			// Closed under the reader by the forced kill after a test.
			this.output.add("(output unreadable: " + ex + ")");
		}
	}

}
