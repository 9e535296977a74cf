package dev.workqueue.postgres;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link NoticeSender}: never blocks, folds the requests made while a notice is in flight
 * into one more with the earliest due time, always sends after the last request, and logs
 * a failure once per outage without throwing.
 */
@RequiresPostgres
@Timeout(120)
class NoticeSenderTests {

	private static final AtomicInteger counter = new AtomicInteger();

	private static final Duration WAIT = Duration.ofSeconds(10);

	/** The sending handle's id. */
	private static final String SENDER = "4242-sender";

	private final String channel = Notices
		.channel("wq_sender_" + ProcessHandle.current().pid() + "_" + counter.incrementAndGet());

	private final ProbedDataSource dataSource = new ProbedDataSource(PostgresDatabase.pool());

	@Test
	void requestsMadeWhileANoticeIsInFlightFoldIntoOneMoreWithTheEarliestDueTime() throws Exception {
		try (Listening listening = new Listening(this.channel);
				NoticeSender sender = new NoticeSender(this.dataSource, this.channel, "orders", SENDER,
						"queue 'orders'")) {
			this.dataSource.closeGate();
			sender.send(5_000);
			// The first notice is in flight, held at the gate: everything else folds.
			await().atMost(WAIT).until(() -> this.dataSource.taken() == 1);
			List<Thread> threads = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int offset = t;
				threads.add(new Thread(() -> {
					for (int i = 0; i < 1_250; i++) {
						sender.send(10_000 + offset * 1_250 + i);
					}
				}));
			}
			threads.forEach(Thread::start);
			for (Thread thread : threads) {
				thread.join();
			}
			sender.send(7);
			this.dataSource.openGate();

			await().atMost(WAIT).until(() -> listening.received().size() == 2);
			assertThat(listening.received()).containsExactly(new Notices.Notice("orders", 5_000, SENDER),
					new Notices.Notice("orders", 7, SENDER));
			await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> listening.received().size() == 2);
			assertThat(this.dataSource.taken()).isEqualTo(2);
		}
	}

	@Test
	void tenThousandRequestsFromEightThreadsMakeFarFewerNoticesTheLastAfterTheLastRequest() throws Exception {
		AtomicLong begun = new AtomicLong();
		this.dataSource.probe(begun::get);
		try (Listening listening = new Listening(this.channel);
				NoticeSender sender = new NoticeSender(this.dataSource, this.channel, "orders", SENDER,
						"queue 'orders'")) {
			List<Thread> threads = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				threads.add(new Thread(() -> {
					for (int i = 0; i < 1_250; i++) {
						begun.incrementAndGet();
						sender.send(1_000 + i);
					}
				}));
			}
			threads.forEach(Thread::start);
			for (Thread thread : threads) {
				thread.join();
			}
			begun.incrementAndGet();
			sender.send(1);

			await().atMost(WAIT).until(() -> {
				List<Notices.Notice> received = listening.received();
				return !received.isEmpty() && received.get(received.size() - 1).dueEpochMillis() == 1;
			});
			await().during(Duration.ofMillis(300))
				.atMost(WAIT)
				.until(() -> listening.received().size() == this.dataSource.taken());
			assertThat(listening.received()).hasSizeLessThan(1_000);
			// The last notice took its connection once every request had begun.
			assertThat(this.dataSource.lastProbe()).isEqualTo(10_001);
		}
	}

	@Test
	void aFailureIsLoggedOncePerOutageAndNeverThrown() throws Exception {
		try (LogRecords log = new LogRecords(NoticeSender.class);
				Listening listening = new Listening(this.channel);
				NoticeSender sender = new NoticeSender(this.dataSource, this.channel, "orders", SENDER,
						"queue 'orders'")) {
			this.dataSource.failing(true);
			for (int attempt = 1; attempt <= 3; attempt++) {
				sender.send(0);
				int attempts = attempt;
				await().atMost(WAIT).until(() -> this.dataSource.taken() == attempts);
			}
			await().atMost(WAIT).until(() -> log.count(Level.WARNING) == 1);
			assertThat(log.messages(Level.WARNING).get(0)).contains("queue 'orders'");

			this.dataSource.failing(false);
			sender.send(3);
			await().atMost(WAIT).until(() -> listening.received().contains(new Notices.Notice("orders", 3, SENDER)));
			await().atMost(WAIT).until(() -> log.count(Level.INFO) == 1);

			this.dataSource.failing(true);
			sender.send(0);
			await().atMost(WAIT).until(() -> log.count(Level.WARNING) == 2);
		}
	}

	@Test
	void closeSendsWhatIsRecordedThenEndsTheThreadAndIgnoresLaterRequests() throws Exception {
		try (Listening listening = new Listening(this.channel)) {
			NoticeSender sender = new NoticeSender(this.dataSource, this.channel, "orders", SENDER, "queue 'orders'");
			assertThat(sender.thread()).isNull();
			this.dataSource.closeGate();
			sender.send(0);
			await().atMost(WAIT).until(() -> this.dataSource.taken() == 1);
			sender.send(100);
			sender.close();
			sender.send(5);
			this.dataSource.openGate();

			await().atMost(WAIT).until(() -> listening.received().size() == 2);
			assertThat(listening.received()).containsExactly(new Notices.Notice("orders", 0, SENDER),
					new Notices.Notice("orders", 100, SENDER));
			await().atMost(WAIT).until(() -> !sender.thread().isAlive());
			assertThat(sender.thread().getName()).isEqualTo("workqueue-orders-notices");
		}
	}

	@Test
	void aPoolThatHandsOutConnectionsWithAutoCommitOffStillDeliversTheNotice() throws SQLException {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL);
		config.setMaximumPoolSize(1);
		config.setAutoCommit(false);
		try (HikariDataSource pool = new HikariDataSource(config);
				Listening listening = new Listening(this.channel);
				NoticeSender sender = new NoticeSender(pool, this.channel, "orders", SENDER, "queue 'orders'")) {
			sender.send(0);
			await().atMost(WAIT).until(() -> listening.received().contains(new Notices.Notice("orders", 0, SENDER)));
		}
	}

}
