package dev.workqueue.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * An extra worker JVM of the 3-JVM throughput case, or the consumer JVM of the
 * add&rarr;get latency across JVMs, started by {@link WorkerJvm}: it builds its own
 * client and queue object on the shared queue, runs its workers, and reports on standard
 * output.
 * <p>
 * Arguments: contender ({@code ours} or {@code redisson}), queue name, workers, client
 * name, and optionally {@code log}. Output lines: {@code ready <nanos>} once the workers
 * run, then {@code done <n>} (items processed so far) at most every
 * {@value #REPORT_MILLIS} ms while it changes; with {@code log}, also
 * {@code got <item> <nanos>} as each item is handed out, {@code nanos} from
 * {@link System#nanoTime()} (one clock for every process of the machine on Linux, checked
 * by {@link WorkerJvm} on {@code ready}). It stops on a {@code stop} line or at the end
 * of standard input (so it never outlives the JVM that started it).
 */
public final class RedisWorkerMain {

	static final long REPORT_MILLIS = 2;

	private RedisWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length != 4 && (args.length != 5 || !args[4].equals("log"))) {
			System.err.println("usage: RedisWorkerMain ours|redisson QUEUE_NAME WORKERS CLIENT_NAME [log]");
			System.exit(2);
		}
		boolean log = args.length == 5;
		RedisContender contender = RedisContender.named(args[0]);
		contender.open(args[3]);
		RedisContender.Queue queue = contender.queue(args[1]);
		Progress progress = new Progress();
		RedisWorkers workers = RedisWorkers.start(queue, Integer.parseInt(args[2]), progress, (item) -> {
			if (log) {
				long nanos = System.nanoTime();
				synchronized (System.out) {
					System.out.println("got " + item + " " + nanos);
					System.out.flush();
				}
			}
		});
		Thread reporter = new Thread(() -> report(progress), "redis-bench-reporter");
		reporter.setDaemon(true);
		synchronized (System.out) {
			System.out.println("ready " + System.nanoTime());
			System.out.flush();
		}
		reporter.start();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null && !line.equals("stop"); line = in.readLine()) {
			// Waits for the end.
		}
		reporter.interrupt();
		workers.stop();
		contender.close();
		System.exit(0);
	}

	private static void report(Progress progress) {
		long reported = 0;
		try {
			while (true) {
				Thread.sleep(REPORT_MILLIS);
				long count = progress.count();
				if (count != reported) {
					reported = count;
					synchronized (System.out) {
						System.out.println("done " + count);
						System.out.flush();
					}
				}
			}
		}
		catch (InterruptedException ex) {
			// Stopped.
		}
	}

}
