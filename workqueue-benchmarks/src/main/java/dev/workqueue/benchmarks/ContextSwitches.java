package dev.workqueue.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The context switches of this JVM's threads, voluntary (a thread parks, waits or blocks
 * in a system call) and not (the scheduler takes its core), from Linux's
 * {@code /proc/self/task/<tid>/status}: a figure that does not move with the machine's
 * speed, which a wake-up between threads costs however fast the cores are. A thread that
 * ends between two readings takes its switches with it, so read while the threads
 * measured are alive. Where {@code /proc} is not there, every reading is {@code NaN}.
 */
final class ContextSwitches {

	private static final Path TASKS = Path.of("/proc/self/task");

	private ContextSwitches() {
	}

	/**
	 * Returns the context switches of the live threads so far.
	 * @return the count, or {@code NaN} where {@code /proc} cannot tell
	 */
	static double total() {
		if (!Files.isDirectory(TASKS)) {
			return Double.NaN;
		}
		long total = 0;
		try (Stream<Path> tasks = Files.list(TASKS)) {
			for (Path task : (Iterable<Path>) tasks::iterator) {
				total += switchesOf(task.resolve("status"));
			}
		}
		catch (IOException ex) {
			return Double.NaN;
		}
		return total;
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
