package dev.workqueue.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * CPU time of the threads a structure starts, from {@link ThreadMXBean}: the threads are
 * found as those alive after the structure was built that were not alive before.
 */
final class ThreadCpu {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private final long[] threadIds;

	private ThreadCpu(long[] threadIds) {
		this.threadIds = threadIds;
	}

	/**
	 * Returns the ids of the live threads, to pass to {@link #startedSince} later.
	 * @return the live threads' ids
	 */
	static Set<Long> liveThreadIds() {
		if (!THREADS.isThreadCpuTimeSupported()) {
			throw new IllegalStateException("this JVM cannot measure the CPU time of a thread");
		}
		THREADS.setThreadCpuTimeEnabled(true);
		return Arrays.stream(THREADS.getAllThreadIds()).boxed().collect(Collectors.toCollection(HashSet::new));
	}

	/**
	 * Returns the threads alive now that were not in {@code before}.
	 * @param before the ids of the threads alive earlier
	 * @return the threads started since
	 */
	static ThreadCpu startedSince(Set<Long> before) {
		return new ThreadCpu(Arrays.stream(THREADS.getAllThreadIds()).filter((id) -> !before.contains(id)).toArray());
	}

	int count() {
		return this.threadIds.length;
	}

	String names() {
		return Arrays.stream(THREADS.getThreadInfo(this.threadIds))
			.map((info) -> (info != null) ? info.getThreadName() : "(ended)")
			.collect(Collectors.joining(", ", "[", "]"));
	}

	/**
	 * Returns the CPU time the threads have used so far; an ended thread counts zero.
	 * @return the CPU time in nanoseconds
	 */
	long cpuNanos() {
		long total = 0;
		for (long id : this.threadIds) {
			total += Math.max(0, THREADS.getThreadCpuTime(id));
		}
		return total;
	}

}
