package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.store.InspectionDriver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A give-up's trim deletes only the records as its snapshot saw them: a record another
 * instance gave up again meanwhile (now the newest) is re-checked after the trim waited
 * for its row lock, and no longer matches. (A trim that picks the records by item alone
 * deletes it: this test fails on such a trim.)
 */
@RequiresPostgres
class PostgresGivenUpRaceTests {

	private final EngineFixture fixture = new EngineFixture();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	@Test
	void aRecordGivenUpAgainWhileATrimWaitsForItsRowIsKept() throws Exception {
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("race").givenUp(2, Duration.ofDays(1)).buildDelayingQueue());
		InspectionDriver inspection = EngineFixture.statements(queue).inspection();
		inspection.keepGivenUp("x", 1, "first");
		inspection.keepGivenUp("w", 1, "first");
		try (Connection other = PostgresDatabase.connect()) {
			other.setAutoCommit(false);
			try (Statement statement = other.createStatement()) {
				// Another instance gives x up again (what its upsert writes): x becomes
				// the
				// newest record, and its row stays locked until the commit.
				statement.executeUpdate("UPDATE " + this.fixture.table() + "_given_up SET attempts = 9,"
						+ " reason = 'again', given_up_at = clock_timestamp() WHERE queue = 'race' AND item = 'x'");
			}
			// This give-up's snapshot has x oldest, beyond the bound: its trim waits for
			// x.
			CompletableFuture<Void> giveUp = CompletableFuture.runAsync(() -> inspection.keepGivenUp("y", 1, "later"));
			await().atMost(Duration.ofSeconds(5)).until(this::aTrimWaitsForALock);
			assertThat(giveUp).isNotDone();
			other.commit();
			giveUp.get(5, TimeUnit.SECONDS);
		}
		assertThat(TestSql.queryString(
				"SELECT reason FROM " + this.fixture.table() + "_given_up WHERE queue = 'race' AND item = 'x'"))
			.as("the record given up again meanwhile")
			.isEqualTo("again");
		assertThat(TestSql.queryString(
				"SELECT reason FROM " + this.fixture.table() + "_given_up WHERE queue = 'race' AND item = 'y'"))
			.isEqualTo("later");
	}

	private boolean aTrimWaitsForALock() {
		return TestSql.queryLong(
				"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?",
				"%DELETE FROM " + this.fixture.table() + "_given_up %") > 0;
	}

}
