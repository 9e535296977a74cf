package dev.workqueue.shared;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One handle of a test's shared queue in a JVM of its own ({@link SharedQueueProcess}),
 * for any store: what the kill and pause tests need of a process, written once. The test
 * sends commands and reads their answers ({@link #send}), and can pause the JVM
 * ({@code SIGSTOP}), let it go on ({@code SIGCONT}) or kill it ({@code SIGKILL}).
 * <p>
 * One reader thread moves the lines of the child's standard output: its consumers'
 * reports ({@code got ...}, {@code held ...}) into {@link #events()}, the others into a
 * queue the commands take their answers from; lines that answer no command (a thread
 * dump) are kept for the failure message. Its standard error goes to a file, whose last
 * lines a failure message shows.
 */
public final class QueueProcess implements AutoCloseable {

	private final Process process;

	private final Writer commands;

	private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

	private final List<String> output = new ArrayList<>();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final Thread reader;

	private final File errors;

	private QueueProcess(Process process, File errors) {
		this.process = process;
		this.errors = errors;
		this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		this.reader = new Thread(this::read, "queue-process-" + process.pid());
		this.reader.setDaemon(true);
		this.reader.start();
	}

	/**
	 * Starts a JVM with one handle of {@code store}'s queue, and waits until it is open.
	 * @param store the test's store
	 * @param lease the child handle's lease
	 * @return the running process
	 * @throws Exception if it does not start within 30 seconds
	 */
	public static QueueProcess start(SharedStore store, Duration lease) throws Exception {
		return start(store.processOpener(), lease);
	}

	/**
	 * Starts a JVM with one handle that {@code opener} opens, and waits until it is open.
	 * @param opener a {@link SharedStore.ProcessOpener}'s class name, then its arguments
	 * @param lease the child handle's lease
	 * @return the running process
	 * @throws Exception if it does not start within 30 seconds
	 */
	static QueueProcess start(List<String> opener, Duration lease) throws Exception {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
						System.getProperty("java.class.path"), SharedQueueProcess.class.getName(),
						Long.toString(lease.toMillis())));
		command.addAll(opener);
		// Its standard error (the stores' logging) goes to a file of its own: written to
		// the same pipe, a log record could land inside a report line.
		File errors = File.createTempFile("queue-process-", ".log");
		errors.deleteOnExit();
		QueueProcess child = new QueueProcess(new ProcessBuilder(command).redirectError(errors).start(), errors);
		child.answer("ready", Duration.ofSeconds(30));
		return child;
	}

	private void read() {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = lines.readLine(); line != null; line = lines.readLine()) {
				if (line.startsWith("got ") || line.startsWith("ending ") || line.startsWith("held ")) {
					this.events.add(line);
				}
				else {
					this.answers.add(line);
				}
			}
		}
		catch (IOException ex) {
			// The process ended.
		}
	}

	/**
	 * What the child's consumers reported so far, in order: {@code got <item> <nanos>},
	 * {@code ending <item> <nanos>} and {@code held <item> <from> <until>} (see
	 * {@link SharedQueueProcess}).
	 * @return the report lines
	 */
	public List<String> events() {
		return List.copyOf(this.events);
	}

	/**
	 * The child for a failure message: its pid, whether it runs, and what it wrote that
	 * answered no command.
	 */
	@Override
	public synchronized String toString() {
		List<String> unanswered = new ArrayList<>(this.output);
		unanswered.addAll(this.answers);
		return "JVM " + pid() + (this.process.isAlive() ? " (running)" : " (ended)") + ", other output: " + unanswered
				+ ", its standard error in " + this.errors + ", ending: " + errorsTail();
	}

	/**
	 * The last lines of the child's standard error: its file goes when this JVM ends, the
	 * failure message stays.
	 */
	private List<String> errorsTail() {
		try {
			List<String> lines = Files.readAllLines(this.errors.toPath(), StandardCharsets.UTF_8);
			return lines.subList(Math.max(0, lines.size() - 20), lines.size());
		}
		catch (IOException ex) {
			return List.of("unreadable: " + ex);
		}
	}

	/** The child's process id. */
	public long pid() {
		return this.process.pid();
	}

	/**
	 * Sends one command and returns its answer.
	 * @param command a command of {@link SharedQueueProcess}
	 * @param deadline how long the answer may take
	 * @return the answer's text after its first word
	 * @throws Exception if no answer comes in time, or the answer is an error
	 */
	public String send(String command, Duration deadline) throws Exception {
		this.commands.write(command + "\n");
		this.commands.flush();
		String verb = switch (command.split(" ")[0]) {
			case "take" -> "took";
			case "done" -> "done";
			case "add" -> "added";
			case "hold" -> "holding";
			case "work" -> "working";
			default -> throw new IllegalArgumentException("command: unknown, was '" + command + "'");
		};
		return answer(verb, deadline);
	}

	private synchronized String answer(String verb, Duration deadline) throws Exception {
		long until = System.nanoTime() + deadline.toNanos();
		for (;;) {
			String line = this.answers.poll(until - System.nanoTime(), TimeUnit.NANOSECONDS);
			if (line == null) {
				throw new AssertionError(
						"No '" + verb + "' from the child JVM in " + deadline + "; its output: " + this.output);
			}
			if (line.startsWith(verb + " ")) {
				return line.substring(verb.length() + 1);
			}
			if (line.startsWith("error ")) {
				throw new AssertionError("The child JVM failed: " + line + "; its output: " + this.output);
			}
			this.output.add(line);
		}
	}

	/** Pauses the JVM ({@code SIGSTOP}): its threads, timers and lease renewals stop. */
	public void pause() throws Exception {
		signal("STOP");
	}

	/** Lets a paused JVM go on ({@code SIGCONT}). */
	public void resume() throws Exception {
		signal("CONT");
	}

	/**
	 * Has a running JVM print its threads ({@code SIGQUIT}), for a failure message: they
	 * show in {@link #toString()} once the JVM wrote them (given a second).
	 */
	public void dumpThreads() {
		if (this.process.isAlive()) {
			try {
				signal("QUIT");
			}
			catch (Exception ex) {
				// Only for a failure message.
			}
			LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
		}
	}

	private void signal(String signal) throws Exception {
		int status = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start().waitFor();
		if (status != 0) {
			throw new IllegalStateException("kill -" + signal + " " + pid() + " failed with status " + status);
		}
	}

	/**
	 * Kills the JVM ({@code SIGKILL}) and waits until it is gone and everything it wrote
	 * is in {@link #events()}.
	 */
	public void kill() throws InterruptedException {
		// Through its handle: Process.destroyForcibly also closes this end of the child's
		// standard output, and the lines the reader had not read yet, written before the
		// kill (a consumer's got and ending before a done that ended its item), would be
		// lost. The reader reads on to the end of the pipe instead.
		this.process.toHandle().destroyForcibly();
		this.process.waitFor();
		this.reader.join(TimeUnit.SECONDS.toMillis(10));
		if (this.reader.isAlive()) {
			throw new AssertionError("The output of JVM " + pid() + " was not read to its end within 10 s of its kill");
		}
		try {
			this.commands.close();
		}
		catch (IOException ex) {
			// The child is gone: its end of the pipe too.
		}
	}

	@Override
	public void close() throws Exception {
		if (this.process.isAlive()) {
			resume();
		}
		kill();
	}

}
