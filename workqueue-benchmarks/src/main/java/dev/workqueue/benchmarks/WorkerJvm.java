package dev.workqueue.benchmarks;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A worker process ({@link RedisWorkerMain} or {@link PostgresWorkerMain}, started with
 * this JVM's class path (the benchmark jar) and Java; or any command, such as BullMQ's
 * Node script): its workers consume the same queue as this JVM's, and each item it
 * reports processed is added to this JVM's {@link Progress}, a few milliseconds late.
 * Other lines it prints go to a listener (or this JVM's standard output); its standard
 * error is this JVM's.
 * <p>
 * A process whose {@code ready} line carries a reading of its monotonic clock
 * ({@code ready <nanos>}) is checked to share this JVM's {@link System#nanoTime()}: the
 * reading must fall between the start and the line's arrival, so that times it reports (a
 * consumer's {@code got <item> <nanos>}) can be compared with this JVM's.
 */
final class WorkerJvm {

	static final List<String> JVM_OPTIONS = List.of("-Xms256m", "-Xmx256m");

	private final Process process;

	private final CountDownLatch ready = new CountDownLatch(1);

	/** Just before it was started, on this JVM's clock. */
	private final long startedNanos;

	/**
	 * Its {@code ready <nanos>} reading if it fell outside [start, arrival], else
	 * {@code null}; published by the latch.
	 */
	private String otherClock;

	private final Thread reader;

	private volatile long processed;

	private WorkerJvm(Process process, long startedNanos, Progress progress, Consumer<String> lines) {
		this.process = process;
		this.startedNanos = startedNanos;
		this.reader = new Thread(() -> read(progress, lines), "bench-jvm-" + process.pid());
		this.reader.setDaemon(true);
		this.reader.start();
	}

	/**
	 * Starts a Redis worker JVM and waits until its workers run.
	 * @param contender {@code ours} or {@code redisson}
	 * @param queueName the shared queue
	 * @param workers how many workers it runs
	 * @param clientName its connections' name
	 * @param progress where its processed items are counted
	 * @return the running JVM
	 * @throws IOException if it cannot be started
	 * @throws InterruptedException if interrupted
	 */
	static WorkerJvm start(String contender, String queueName, int workers, String clientName, Progress progress)
			throws IOException, InterruptedException {
		return start(RedisWorkerMain.class,
				List.of("-D" + RedisAdmin.PROPERTY + "=" + RedisAdmin.HOST + ":" + RedisAdmin.PORT),
				List.of(contender, queueName, Integer.toString(workers), clientName), progress, null);
	}

	/**
	 * Starts a Redis worker JVM that logs each item as it is handed out, and waits until
	 * its workers run.
	 * @param contender {@code ours} or {@code redisson}
	 * @param queueName the shared queue
	 * @param workers how many workers it runs
	 * @param clientName its connections' name
	 * @param lines gets each {@code got <item> <nanos>} line, and the others it prints
	 * @return the running JVM
	 * @throws IOException if it cannot be started
	 * @throws InterruptedException if interrupted
	 */
	static WorkerJvm startLogging(String contender, String queueName, int workers, String clientName,
			Consumer<String> lines) throws IOException, InterruptedException {
		return start(RedisWorkerMain.class,
				List.of("-D" + RedisAdmin.PROPERTY + "=" + RedisAdmin.HOST + ":" + RedisAdmin.PORT),
				List.of(contender, queueName, Integer.toString(workers), clientName, "log"), new Progress(), lines);
	}

	/**
	 * Starts a worker JVM and waits until it prints {@code ready}.
	 * @param main its main class
	 * @param properties its {@code -D} options
	 * @param arguments its arguments
	 * @param progress where its processed items are counted
	 * @param lines gets each line it prints other than {@code ready} and
	 * {@code done <n>}, on the reading thread; {@code null}: they are printed
	 * @return the running JVM
	 * @throws IOException if it cannot be started
	 * @throws InterruptedException if interrupted
	 */
	static WorkerJvm start(Class<?> main, List<String> properties, List<String> arguments, Progress progress,
			Consumer<String> lines) throws IOException, InterruptedException {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>();
		command.add(java);
		command.addAll(JVM_OPTIONS);
		command.addAll(properties);
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(main.getName());
		command.addAll(arguments);
		return start(command, null, progress, lines);
	}

	/**
	 * Starts a worker process and waits until it prints {@code ready} (or
	 * {@code ready <nanos>}, checked, see above).
	 * @param command the command
	 * @param directory where it runs, or {@code null} for this JVM's
	 * @param progress where its processed items are counted
	 * @param lines as {@link #start(Class, List, List, Progress, Consumer)}'s
	 * @return the running process
	 * @throws IOException if it cannot be started
	 * @throws InterruptedException if interrupted
	 */
	static WorkerJvm start(List<String> command, File directory, Progress progress, Consumer<String> lines)
			throws IOException, InterruptedException {
		long startedNanos = System.nanoTime();
		Process process = new ProcessBuilder(command).directory(directory)
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		WorkerJvm jvm = new WorkerJvm(process, startedNanos, progress, lines);
		boolean ready = jvm.ready.await(60, TimeUnit.SECONDS);
		if (!ready || jvm.otherClock != null) {
			jvm.stop();
			throw new IllegalStateException("worker process " + process.pid() + " (" + command.get(0) + ") "
					+ (ready ? "reads another clock: " + jvm.otherClock : "not ready within 60 s"));
		}
		return jvm;
	}

	private void read(Progress progress, Consumer<String> lines) {
		long reported = 0;
		try (BufferedReader out = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = out.readLine(); line != null; line = out.readLine()) {
				if (line.equals("ready") || line.startsWith("ready ")) {
					checkClock(line);
					this.ready.countDown();
				}
				else if (line.startsWith("done ")) {
					long count = Long.parseLong(line.substring("done ".length()));
					progress.add(count - reported);
					reported = count;
					this.processed = count;
				}
				else if (lines != null) {
					lines.accept(line);
				}
				else {
					System.out.println("[worker JVM " + this.process.pid() + "] " + line);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// Ended.
		}
	}

	private void checkClock(String line) {
		long arrivedNanos = System.nanoTime();
		if (line.startsWith("ready ")) {
			long nanos = Long.parseLong(line.substring("ready ".length()));
			if (nanos < this.startedNanos || nanos > arrivedNanos) {
				this.otherClock = nanos + " ns, outside this JVM's " + this.startedNanos + ".." + arrivedNanos;
			}
		}
	}

	/**
	 * Sends it a line on its standard input.
	 * @param line the line
	 * @throws IOException if it has ended
	 */
	void tell(String line) throws IOException {
		OutputStream in = this.process.getOutputStream();
		in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
		in.flush();
	}

	/** Items its workers processed, as last reported. */
	long processed() {
		return this.processed;
	}

	long pid() {
		return this.process.pid();
	}

	/**
	 * Asks the JVM to stop, and kills it if it has not within 15 s.
	 * @throws InterruptedException if interrupted
	 */
	void stop() throws InterruptedException {
		try (OutputStream in = this.process.getOutputStream()) {
			in.write("stop\n".getBytes(StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			// Already ended.
		}
		if (!this.process.waitFor(15, TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
		}
		this.reader.join(5_000);
	}

}
