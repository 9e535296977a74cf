package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link Notices} on the real database: a {@code NOTIFY} from another connection reaches
 * the subscribers of its queue, a terminated {@code LISTEN} connection is reopened and
 * the subscribers told to look again, many subscribers, and the last release closes the
 * connection.
 */
@RequiresPostgres
class NoticesTests {

	private static final AtomicInteger counter = new AtomicInteger();

	private static final Duration WAIT = Duration.ofSeconds(5);

	private final List<Notices> acquired = new ArrayList<>();

	/** A table name of this test's own: its channel is ours alone. */
	private final String table = "wq_notices_" + ProcessHandle.current().pid() + "_" + counter.incrementAndGet();

	private final String channel = Notices.channel(this.table);

	@AfterEach
	void releaseAll() {
		this.acquired.forEach(Notices::release);
	}

	@Test
	void aNotifyFromAnotherConnectionReachesTheSubscribersOfItsQueueOnly() {
		Notices notices = acquire(new Object());
		Recorder orders = new Recorder();
		Recorder invoices = new Recorder();
		notices.subscribe(this.channel, "orders", "subscriber", orders);
		notices.subscribe(this.channel, "invoices", "subscriber", invoices);
		// Told to look once its channel is listened to: notices from now on reach it.
		await().atMost(WAIT).until(() -> orders.missed.get() == 1 && invoices.missed.get() == 1);

		notify(this.channel, Notices.payload("orders", 0));
		notify(this.channel, Notices.payload("orders", 1_700_000_000_123L));
		notify(this.channel, Notices.payload("invoices", 42));

		await().atMost(WAIT).until(() -> orders.dues().size() >= 1 && invoices.dues().size() == 1);
		assertThat(invoices.dues()).containsExactly(42L);
		// Two notices of one queue in one batch make one call with the earliest due time.
		await().atMost(WAIT).until(() -> orders.dues().contains(0L));
		assertThat(orders.dues()).allMatch((due) -> due == 0L || due == 1_700_000_000_123L);
		assertThat(orders.missed.get()).isEqualTo(1);
	}

	@Test
	void aSubscriberDoesNotHearTheNoticesStampedWithItsOwnId() {
		Notices notices = acquire(new Object());
		Recorder sender = new Recorder();
		Recorder other = new Recorder();
		notices.subscribe(this.channel, "orders", "sender", sender);
		notices.subscribe(this.channel, "orders", "other", other);
		await().atMost(WAIT).until(() -> sender.missed.get() == 1 && other.missed.get() == 1);

		notify(this.channel, Notices.payload("orders", 5, "sender"));
		await().atMost(WAIT).until(() -> other.dues().contains(5L));
		// Sent after the stamped one was heard: a batch of its own, handed out after it.
		notify(this.channel, Notices.payload("orders", 7, "someone-else"));

		await().atMost(WAIT).until(() -> sender.dues().contains(7L) && other.dues().contains(7L));
		assertThat(sender.dues()).as("not its own").containsExactly(7L);
		assertThat(other.dues()).containsExactly(5L, 7L);
	}

	@Test
	void aTerminatedListenConnectionIsReopenedAndItsSubscribersToldToLookAgain() throws SQLException {
		Notices notices = acquire(new Object());
		Recorder recorder = new Recorder();
		notices.subscribe(this.channel, "orders", "subscriber", recorder);
		await().atMost(WAIT).until(() -> recorder.missed.get() == 1);
		int pid = notices.backendPid();
		assertThat(applicationName(pid)).isEqualTo(Notices.APPLICATION_NAME);

		terminate(pid);

		await().atMost(WAIT).until(() -> recorder.missed.get() == 2);
		assertThat(notices.backendPid()).isNotZero().isNotEqualTo(pid);
		assertThat(applicationName(notices.backendPid())).isEqualTo(Notices.APPLICATION_NAME);
		notify(this.channel, Notices.payload("orders", 7));
		await().atMost(WAIT).until(() -> recorder.dues().contains(7L));
	}

	@Test
	void aDatabaseUnreachableAtFirstIsListenedToOnceItAnswers() {
		AtomicInteger calls = new AtomicInteger();
		Notices notices = acquire(new Object(), () -> {
			if (calls.incrementAndGet() <= 2) {
				throw new IllegalStateException("no database yet");
			}
			return connect();
		});
		Recorder recorder = new Recorder();
		notices.subscribe(this.channel, "orders", "subscriber", recorder);
		await().atMost(WAIT).until(() -> recorder.missed.get() == 1);
		assertThat(calls.get()).isEqualTo(3);
		notify(this.channel, Notices.payload("orders", 0));
		await().atMost(WAIT).until(() -> recorder.dues().contains(0L));
	}

	@Test
	void manySubscribersOnSeveralChannelsEachHearTheirOwnQueue() {
		Notices notices = acquire(new Object());
		String otherChannel = Notices.channel(this.table + "_other");
		List<Recorder> recorders = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			Recorder recorder = new Recorder();
			notices.subscribe((i % 2 == 0) ? this.channel : otherChannel, "queue-" + (i % 8), "subscriber", recorder);
			recorders.add(recorder);
		}
		await().atMost(WAIT).until(() -> recorders.stream().allMatch((recorder) -> recorder.missed.get() == 1));
		assertThat(notices.listening()).containsExactlyInAnyOrder(this.channel, otherChannel);

		for (int q = 0; q < 8; q++) {
			notify((q % 2 == 0) ? this.channel : otherChannel, Notices.payload("queue-" + q, 1000 + q));
		}

		for (int i = 0; i < 40; i++) {
			Recorder recorder = recorders.get(i);
			long expected = 1000 + (i % 8);
			await().atMost(WAIT).until(() -> !recorder.dues().isEmpty());
			assertThat(recorder.dues()).as("subscriber %d", i).containsExactly(expected);
		}
	}

	@Test
	void closingTheLastSubscriptionOfAChannelStopsListeningToIt() {
		Notices notices = acquire(new Object());
		Recorder first = new Recorder();
		Recorder second = new Recorder();
		Notices.Subscription one = notices.subscribe(this.channel, "orders", "subscriber", first);
		Notices.Subscription two = notices.subscribe(this.channel, "invoices", "subscriber", second);
		await().atMost(WAIT).until(() -> notices.listening().contains(this.channel));

		one.close();
		notify(this.channel, Notices.payload("invoices", 0));
		await().atMost(WAIT).until(() -> second.dues().contains(0L));
		assertThat(notices.listening()).contains(this.channel);

		two.close();
		two.close();
		await().atMost(WAIT).until(() -> notices.listening().isEmpty());
	}

	@Test
	void acquiresOfOneKeyShareOneConnectionAndTheLastReleaseClosesIt() throws SQLException {
		Object key = new Object();
		Notices first = Notices.acquire(key, NoticesTests::connect);
		Notices second = Notices.acquire(key, NoticesTests::connect);
		assertThat(second).isSameAs(first);
		Recorder recorder = new Recorder();
		first.subscribe(this.channel, "orders", "subscriber", recorder);
		await().atMost(WAIT).until(() -> recorder.missed.get() == 1);
		int pid = first.backendPid();
		assertThat(threadsNamed(Notices.THREAD_NAME)).isPositive();

		first.release();
		assertThat(applicationName(pid)).isEqualTo(Notices.APPLICATION_NAME);
		second.release();

		await().atMost(WAIT).until(() -> applicationName(pid) == null);
		assertThatIllegalStateException().isThrownBy(first::release);
		Notices third = acquire(key);
		assertThat(third).isNotSameAs(first);
	}

	@Test
	void channelsAreShortDistinctAndTheSameForEveryCaseOfTheName() {
		String longest = "s".repeat(63) + "." + "t".repeat(TableName.MAX_LENGTH);
		String almost = "s".repeat(63) + "." + "t".repeat(TableName.MAX_LENGTH - 1) + "u";
		Set<String> channels = new HashSet<>();
		for (String table : List.of("workqueue_item", "jobs.workqueue_item", "jobs_workqueue_item", longest, almost,
				"a", "a$b")) {
			String channel = Notices.channel(table);
			assertThat(channel.getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(63);
			assertThat(channels.add(channel)).as(table).isTrue();
		}
		assertThat(Notices.channel("Jobs.WorkQueue_Item")).isEqualTo(Notices.channel("jobs.workqueue_item"));
		assertThat(Notices.channel(longest)).isEqualTo(Notices.channel(longest.toUpperCase()));
		assertThat(Notices.channel("workqueue_item")).isEqualTo("workqueue:workqueue_item");
	}

	@Test
	void payloadsCarryAnyQueueNameAndTheirDueTime() {
		for (String queue : List.of("orders", "a:b:c", "épreuve ✓", "", "x".repeat(10_000))) {
			for (long due : new long[] { 0, 1, 1_700_000_000_123L, Long.MAX_VALUE }) {
				String payload = Notices.payload(queue, due);
				assertThat(payload.getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSizeLessThan(300);
				assertThat(Notices.parse(payload)).isEqualTo(new Notices.Notice(Notices.queueKey(queue), due, null));
				String stamped = Notices.payload(queue, due, "4242-k3x9");
				assertThat(stamped.getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSizeLessThan(300);
				assertThat(Notices.parse(stamped))
					.isEqualTo(new Notices.Notice(Notices.queueKey(queue), due, "4242-k3x9"));
			}
		}
		assertThat(Notices.queueKey("orders")).isEqualTo("orders");
		assertThat(Notices.queueKey("x".repeat(10_000))).isNotEqualTo(Notices.queueKey("x".repeat(9_999)));
		assertThat(Notices.payload("orders", -5)).isEqualTo(Notices.payload("orders", 0));
		for (String foreign : new String[] { null, "", "hello", ":orders", "x:orders", "-1:orders", "/a:orders",
				"x/a:orders" }) {
			assertThat(Notices.parse(foreign)).as(foreign).isNull();
		}
	}

	private Notices acquire(Object key) {
		return acquire(key, NoticesTests::connect);
	}

	private Notices acquire(Object key, Supplier<Connection> connections) {
		Notices notices = Notices.acquire(key, connections);
		this.acquired.add(notices);
		return notices;
	}

	static Connection connect() {
		try {
			return PostgresDatabase.connect();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static void notify(String channel, String payload) {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
			statement.setString(1, channel);
			statement.setString(2, payload);
			statement.execute();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The application name of a backend, or null once it is gone. */
	static String applicationName(int pid) throws SQLException {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT application_name FROM pg_stat_activity WHERE pid = ?")) {
			statement.setInt(1, pid);
			try (ResultSet result = statement.executeQuery()) {
				return result.next() ? result.getString(1) : null;
			}
		}
	}

	static void terminate(int pid) throws SQLException {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection.prepareStatement("SELECT pg_terminate_backend(?)")) {
			statement.setInt(1, pid);
			try (ResultSet result = statement.executeQuery()) {
				assertThat(result.next() && result.getBoolean(1)).as("terminated backend %d", pid).isTrue();
			}
		}
	}

	private static long threadsNamed(String name) {
		return Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread.getName().equals(name)).count();
	}

	/** A listener that records what it hears. */
	static final class Recorder implements Notices.Listener {

		final ConcurrentLinkedQueue<Long> dues = new ConcurrentLinkedQueue<>();

		final AtomicInteger missed = new AtomicInteger();

		@Override
		public void notice(long dueEpochMillis) {
			this.dues.add(dueEpochMillis);
		}

		@Override
		public void missedNotices() {
			this.missed.incrementAndGet();
		}

		List<Long> dues() {
			return List.copyOf(this.dues);
		}

	}

}
