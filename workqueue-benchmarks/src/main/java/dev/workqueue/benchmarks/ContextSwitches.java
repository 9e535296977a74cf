package dev.workqueue.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The context switches of this JVM's threads over a window, voluntary (a thread parks,
 * waits or blocks in a system call) and not (the scheduler takes its core), from Linux's
 * {@code /proc/self/task/<tid>/status}: a figure that does not move with the machine's
 * speed, which a wake-up between threads costs however fast the cores are. Counted thread
 * by thread: a thread started in the window counts from zero, and one that ended in it
 * counts nothing (its switches are gone with it), so read the end while the threads
 * measured are alive. Where {@code /proc} is not there, the count is {@code NaN}.
 */
final class ContextSwitches {

	private static final Path TASKS = Path.of("/proc/self/task");

	/** Each thread's switches at the window's start, {@code null} without /proc. */
	private final Map<String, Long> atStart;

	private ContextSwitches(Map<String, Long> atStart) {
		this.atStart = atStart;
	}

	/**
	 * Opens a window: reads each live thread's switches so far.
	 * @return the window
	 */
	static ContextSwitches start() {
		return new ContextSwitches(read());
	}

	/**
	 * Returns the switches of the live threads since {@link #start}.
	 * @return the count, or {@code NaN} where {@code /proc} cannot tell
	 */
	double sinceStart() {
		Map<String, Long> now = read();
		if (this.atStart == null || now == null) {
			return Double.NaN;
		}
		long total = 0;
		for (Map.Entry<String, Long> thread : now.entrySet()) {
			total += Math.max(0, thread.getValue() - this.atStart.getOrDefault(thread.getKey(), 0L));
		}
		return total;
	}

	private static Map<String, Long> read() {
		if (!Files.isDirectory(TASKS)) {
			return null;
		}
		Map<String, Long> switches = new HashMap<>();
		try (Stream<Path> tasks = Files.list(TASKS)) {
			for (Path task : (Iterable<Path>) tasks::iterator) {
				switches.put(task.getFileName().toString(), switchesOf(task.resolve("status")));
			}
		}
		catch (IOException ex) {
			return null;
		}
		return switches;
	}

	private static long switchesOf(Path status) {
		long switches = 0;
		try {
			for (String line : Files.readAllLines(status)) {
				if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
					switches += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
			}
		}
		catch (IOException ex) {
			// The thread ended meanwhile: its switches are gone with it.
		}
		return switches;
	}

}
