package dev.workqueue.postgres;

import java.sql.SQLException;

import org.junit.jupiter.api.Test;

import dev.workqueue.postgres.PostgresQueueException.Reason;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SQLSTATE 54000, "program limit exceeded", has two causes here that call for different
 * acts: an item too long for the index (fails again until the item changes) and a full
 * {@code NOTIFY} queue at a commit that notifies (passes; nothing was committed).
 */
class SqlErrorsTests {

	private static final String WHAT = "add to queue 'orders' (table workqueue_item)";

	@Test
	void aFullNotifyQueueIsNotABadItem() {
		SQLException full = new SQLException("ERROR: too many notifications in the NOTIFY queue", "54000");
		PostgresQueueException translated = SqlErrors.translate(full, WHAT);
		assertThat(translated.reason()).isEqualTo(Reason.UNREACHABLE);
		assertThat(translated.getMessage()).contains("NOTIFY queue is full")
			.contains("nothing was committed")
			.doesNotContain("too long");
		assertThat(SqlErrors.notifyQueueFull(full)).isTrue();
		assertThat(SqlErrors.notifyQueueFull(new SQLException("FEHLER: zu viele Benachrichtigungen (NOTIFY)", "54000")))
			.as("a message in the server's language still names NOTIFY")
			.isTrue();
	}

	@Test
	void anItemTooLongForTheIndexIsStillABadItemWhateverItsContextSays() {
		SQLException tooLong = new SQLException(
				"ERROR: index row size 2720 exceeds btree version 4 maximum 2704"
						+ " for index \"workqueue_item_pkey\"\n  Where: SQL statement \"SELECT pg_notify(...)\" NOTIFY",
				"54000");
		PostgresQueueException translated = SqlErrors.translate(tooLong, WHAT);
		assertThat(translated.reason()).isEqualTo(Reason.BAD_ITEM);
		assertThat(translated.getMessage()).contains("too long for the table's index");
		assertThat(SqlErrors.notifyQueueFull(tooLong)).isFalse();
		assertThat(SqlErrors.notifyQueueFull(new SQLException("ERROR: NOTIFY", "22023"))).as("another state").isFalse();
	}

}
