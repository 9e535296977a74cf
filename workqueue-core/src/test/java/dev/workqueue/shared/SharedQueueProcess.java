package dev.workqueue.shared;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

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
 * <li>{@code exit}: shuts the handle down and ends the JVM.</li>
 * </ul>
 * A command that throws answers {@code error <exception>}. It prints {@code ready <pid>}
 * once the handle is open.
 * <p>
 * Arguments: lease in milliseconds, the opener's class name, the opener's arguments.
 */
public final class SharedQueueProcess {

	private SharedQueueProcess() {
	}

	public static void main(String[] args) throws Exception {
		Duration lease = Duration.ofMillis(Long.parseLong(args[0]));
		SharedStore.ProcessOpener opener = (SharedStore.ProcessOpener) Class.forName(args[1])
			.getConstructor()
			.newInstance();
		DelayingQueue<String> queue = opener.open(List.of(args).subList(2, args.length), lease);
		System.out.println("ready " + ProcessHandle.current().pid());
		System.out.flush();
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = commands.readLine(); line != null && !line.equals("exit"); line = commands.readLine()) {
			System.out.println(run(queue, line));
			System.out.flush();
		}
		queue.shutDown();
		System.exit(0);
	}

	private static String run(DelayingQueue<String> queue, String line) {
		String[] command = line.split(" ", 2);
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
				default -> "error unknown command: " + line;
			};
		}
		catch (Exception ex) {
			return "error " + ex;
		}
	}

}
