package dev.workqueue.shared;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.workqueue.DelayingQueue;

/**
 * The child JVM of {@link QueueProcess}, for any store: opens one handle of a test's
 * queue through the store's {@link SharedStore.ProcessOpener} and runs the commands the
 * test writes to its standard input, one a line, answering each with one line:
 * <ul>
 * <li>{@code take <ms>}: polls for up to that long, answers {@code took <item>} or
 * {@code took -};</li>
 * <li>{@code done <item>}: answers {@code done <item>} once {@code done} returned;</li>
 * <li>{@code add <item>}: answers {@code added <item>} once {@code add} returned;</li>
 * <li>{@code hold <n>}: starts {@code n} consumers that each take one item and hold it
 * until the JVM ends; answers {@code holding <n>} once all of them wait for an item (so
 * that items added then are leased several to a claim);</li>
 * <li>{@code work <n>} or {@code work <n> hang}: starts {@code n} consumers that take
 * items and finish each at once ({@code hang}: the first item taken is held until the JVM
 * ends, as a stuck job); answers {@code working <n>};</li>
 * <li>{@code exit}: shuts the handle down and ends the JVM.</li>
 * </ul>
 * Consumers report, each on a line of its own, {@code got <item> <nanos>} when
 * {@code get} handed them an item, {@code ending <item> <nanos>} just before they call
 * its {@code done}, and {@code held <item> <from> <until>} when that {@code done}
 * returned or failed, in {@link System#nanoTime()} (on Linux the system's monotonic
 * clock, which every JVM of the machine reads alike). A command that throws answers
 * {@code error <exception>}. It prints {@code ready <pid>} once the handle is open.
 * <p>
 * Arguments: lease in milliseconds, the opener's class name, the opener's arguments.
 */
public final class SharedQueueProcess {

	private static final PrintStream out = System.out;

	private SharedQueueProcess() {
	}

	public static void main(String[] args) throws Exception {
		Duration lease = Duration.ofMillis(Long.parseLong(args[0]));
		SharedStore.ProcessOpener opener = (SharedStore.ProcessOpener) Class.forName(args[1])
			.getConstructor()
			.newInstance();
		DelayingQueue<String> queue = opener.open(List.of(args).subList(2, args.length), lease);
		print("ready " + ProcessHandle.current().pid());
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = commands.readLine(); line != null && !line.equals("exit"); line = commands.readLine()) {
			print(run(queue, line));
		}
		queue.shutDown();
		System.exit(0);
	}

	/** Prints one line whole: the consumers and the command loop share the output. */
	private static void print(String line) {
		synchronized (out) {
			out.println(line);
			out.flush();
		}
	}

	private static String run(DelayingQueue<String> queue, String line) {
		String[] command = line.split(" ");
		try {
			return switch (command[0]) {
				case "take" -> {
					String item = queue.poll(Duration.ofMillis(Long.parseLong(command[1])));
					yield "took " + ((item != null) ? item : "-");
				}
				case "done" -> {
					queue.done(command[1]);
					yield "done " + command[1];
				}
				case "add" -> {
					queue.add(command[1]);
					yield "added " + command[1];
				}
				case "hold" -> "holding " + hold(queue, Integer.parseInt(command[1]));
				case "work" -> "working "
						+ work(queue, Integer.parseInt(command[1]), command.length > 2 && "hang".equals(command[2]));
				default -> "error unknown command: " + line;
			};
		}
		catch (Exception ex) {
			return "error " + ex;
		}
	}

	private static int hold(DelayingQueue<String> queue, int consumers) {
		CountDownLatch never = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < consumers; i++) {
			threads.add(consumer("holder-" + i, () -> {
				String item = queue.get();
				print("got " + item + " " + System.nanoTime());
				never.await();
			}));
		}
		while (!threads.stream()
			.allMatch((thread) -> thread.getState() == Thread.State.WAITING
					|| thread.getState() == Thread.State.TIMED_WAITING)) {
			Thread.onSpinWait();
		}
		return consumers;
	}

	private static int work(DelayingQueue<String> queue, int consumers, boolean hang) {
		AtomicBoolean hung = new AtomicBoolean(!hang);
		for (int i = 0; i < consumers; i++) {
			consumer("worker-" + i, () -> {
				for (String item = queue.get(); item != null; item = queue.get()) {
					long from = System.nanoTime();
					print("got " + item + " " + from);
					if (hung.compareAndSet(false, true)) {
						new CountDownLatch(1).await();
					}
					print("ending " + item + " " + System.nanoTime());
					try {
						queue.done(item);
					}
					finally {
						print("held " + item + " " + from + " " + System.nanoTime());
					}
				}
			});
		}
		return consumers;
	}

	private static Thread consumer(String name, Task task) {
		Thread thread = new Thread(() -> {
			try {
				task.run();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (RuntimeException ex) {
				print("error " + name + ": " + ex);
			}
		}, name);
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	private interface Task {

		void run() throws InterruptedException;

	}

}
