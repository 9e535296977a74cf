package dev.workqueue.shared;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueues;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What {@link QueueProcess} reads of a child JVM: a kill test counts an item whose done
 * ended it as finished only if the killed JVM's report of it was read.
 */
class QueueProcessTests {

	/** Enough report lines that the reader is still behind the child when it is done. */
	private static final int ITEMS = 10_000;

	@Test
	@Timeout(120)
	void aKilledChildsReportsWrittenBeforeTheKillAreAllRead() throws Exception {
		File ended = File.createTempFile("queue-process-ended-", ".txt");
		ended.deleteOnExit();
		QueueProcess child = QueueProcess.start(
				List.of(FilledQueue.class.getName(), Integer.toString(ITEMS), ended.getPath()), Duration.ofMinutes(1));
		try {
			assertThat(child.send("work 1", Duration.ofSeconds(30))).isEqualTo("1");
			// Told through a file, not the output under test: every done returned, so
			// every got and ending line was written before it.
			await().atMost(Duration.ofSeconds(60))
				.pollInterval(Duration.ofMillis(1))
				.until(() -> Files.readString(ended.toPath(), StandardCharsets.UTF_8).equals("ended"));
			child.kill();
			List<String> events = child.events();
			for (String report : List.of("got", "ending")) {
				assertThat(events.stream().filter((line) -> line.startsWith(report + " ")).count())
					.as("%s lines read of the %d the child wrote before its kill", report, ITEMS)
					.isEqualTo(ITEMS);
			}
		}
		finally {
			child.close();
		}
	}

	/**
	 * Opens an in-memory queue holding {@code item-0} to {@code item-(n - 1)}, n its
	 * first argument, which writes {@code ended} into the file its second argument names
	 * once the last of their dones was called.
	 */
	public static final class FilledQueue implements SharedStore.ProcessOpener {

		@Override
		public DelayingQueue<String> open(List<String> arguments, Duration lease) {
			int count = Integer.parseInt(arguments.get(0));
			File ended = new File(arguments.get(1));
			AtomicInteger dones = new AtomicInteger();
			DelayingQueue<String> queue = WorkQueues.<String>builder().metrics(new WorkQueueMetrics() {

				@Override
				public void done(long workNanos) {
					if (dones.incrementAndGet() == count) {
						try {
							Files.writeString(ended.toPath(), "ended", StandardCharsets.UTF_8);
						}
						catch (IOException ex) {
							throw new IllegalStateException(ex);
						}
					}
				}

			}).buildDelayingQueue();
			queue.addAll(IntStream.range(0, count).mapToObj((i) -> "item-" + i).toList());
			return queue;
		}

	}

}
