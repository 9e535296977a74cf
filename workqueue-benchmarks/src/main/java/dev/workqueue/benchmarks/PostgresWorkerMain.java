package dev.workqueue.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Another instance on a PostgreSQL benchmark queue, started by {@link WorkerJvm}: it
 * opens its own pool and queue object on the shared queue, runs its consumers, and
 * reports on standard output.
 * <p>
 * Arguments: contender ({@code ours} or {@code db-scheduler}), database, queue name,
 * workers, client name, and {@code count} or {@code log}. Output lines: {@code ready}
 * once the consumers run, then {@code done <n>} (items processed so far) at most every
 * {@value #REPORT_MILLIS} ms while it changes; with {@code log}, also
 * {@code got <item> <nanos>} as each item is handed out, {@code nanos} from
 * {@link System#nanoTime()} (one clock for every process of the machine on Linux, so the
 * JVM that added the item can tell its latency). It stops on a {@code stop} line or at
 * the end of standard input (so it never outlives the JVM that started it), closing its
 * pool, so that its backends exit and report their commits.
 */
public final class PostgresWorkerMain {

	static final long REPORT_MILLIS = 2;

	private PostgresWorkerMain() {
	}

	/**
	 * Starts one from this JVM.
	 * @param contender the side
	 * @param database the trial's database
	 * @param queue the queue's name
	 * @param workers its consumers
	 * @param clientName its connections' name
	 * @param progress where its processed items are counted
	 * @param got gets each {@code got <item> <nanos>} line ({@code null}: count only)
	 * @return the running JVM
	 * @throws IOException if it cannot be started
	 * @throws InterruptedException if interrupted
	 */
	static WorkerJvm start(String contender, String database, String queue, int workers, String clientName,
			Progress progress, Consumer<String> got) throws IOException, InterruptedException {
		// The server, and the settings tried on a side (workqueue.bench.*), as this JVM
		// has them.
		List<String> properties = new ArrayList<>();
		properties
			.add("-D" + PostgresAdmin.PROPERTY + "=" + PostgresAdmin.SERVER + "/" + PostgresAdmin.MAINTENANCE_DATABASE);
		System.getProperties()
			.stringPropertyNames()
			.stream()
			.filter((name) -> name.startsWith("workqueue.bench.") && !name.equals(PostgresAdmin.PROPERTY))
			.forEach((name) -> properties.add("-D" + name + "=" + System.getProperty(name)));
		return WorkerJvm.start(PostgresWorkerMain.class, properties, List.of(contender, database, queue,
				Integer.toString(workers), clientName, (got != null) ? "log" : "count"), progress, got);
	}

	public static void main(String[] args) throws Exception {
		if (args.length != 6) {
			System.err
				.println("usage: PostgresWorkerMain ours|db-scheduler DATABASE QUEUE WORKERS CLIENT_NAME count|log");
			System.exit(2);
		}
		boolean log = args[5].equals("log");
		PostgresContender contender = PostgresContender.named(args[0]);
		contender.open(args[1], args[4]);
		PostgresContender.Queue queue = contender.queue(args[2]);
		Progress progress = new Progress();
		PostgresContender.Consumers consumers = queue.consume(Integer.parseInt(args[3]), (item) -> {
			if (log) {
				long nanos = System.nanoTime();
				synchronized (System.out) {
					System.out.println("got " + item + " " + nanos);
					System.out.flush();
				}
			}
			progress.add(1);
		}, (failure) -> {
			System.err.println("worker failed: " + failure);
			failure.printStackTrace();
		});
		Thread reporter = new Thread(() -> report(progress), "pg-bench-reporter");
		reporter.setDaemon(true);
		synchronized (System.out) {
			System.out.println("ready");
			System.out.flush();
		}
		reporter.start();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null && !line.equals("stop"); line = in.readLine()) {
			// Waits for the end.
		}
		consumers.stop();
		queue.stop();
		String statements = contender.statementsPerItem(progress.count());
		if (!statements.isEmpty()) {
			synchronized (System.out) {
				System.out.println(
						"statements per item run by " + args[4] + " (" + progress.count() + " items): " + statements);
			}
		}
		contender.close();
		reporter.interrupt();
		reporter.join(1_000);
		report(progress.count());
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
					report(count);
				}
			}
		}
		catch (InterruptedException ex) {
			// Stopped.
		}
	}

	private static void report(long count) {
		synchronized (System.out) {
			System.out.println("done " + count);
			System.out.flush();
		}
	}

}
