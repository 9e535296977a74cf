package dev.workqueue.sample;

import java.util.List;

import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The outbox in PostgreSQL, with the {@code postgres} profile: shared by every instance,
 * like the queues, kept across restarts, and written in the transaction of the request
 * that stages a payload (see {@link WebhookIntake}), so a payload and the queued target
 * that delivers it commit or roll back together. One row per payload in
 * {@code webhook_payload} ({@code schema-postgres.sql}): {@code taken} marks the payloads
 * a delivery attempt took.
 */
@Component
@Profile("postgres")
public class PostgresOutbox implements Outbox {

	private final JdbcClient jdbc;

	public PostgresOutbox(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@Override
	public int stage(String targetId, String payload) {
		// One statement: the count includes the row it inserts, whatever else commits
		// meanwhile.
		return this.jdbc.sql("""
				WITH staged AS (INSERT INTO webhook_payload (target_id, payload) VALUES (:target, :payload))
				SELECT count(*) + 1 FROM webhook_payload WHERE target_id = :target AND NOT taken
				""").param("target", targetId).param("payload", payload).query(Integer.class).single();
	}

	/**
	 * Marks the waiting payloads taken and reads every taken one, oldest first. The
	 * queue's rule that one worker at a time processes a target keeps two takes of one
	 * target from running at once.
	 */
	@Override
	public List<String> take(String targetId) {
		this.jdbc.sql("UPDATE webhook_payload SET taken = true WHERE target_id = :target AND NOT taken")
			.param("target", targetId)
			.update();
		return this.jdbc.sql("SELECT payload FROM webhook_payload WHERE target_id = :target AND taken ORDER BY id")
			.param("target", targetId)
			.query(String.class)
			.list();
	}

	@Override
	public void delivered(String targetId) {
		this.jdbc.sql("DELETE FROM webhook_payload WHERE target_id = :target AND taken")
			.param("target", targetId)
			.update();
	}

	@Override
	public int drop(String targetId) {
		return this.jdbc.sql("DELETE FROM webhook_payload WHERE target_id = :target")
			.param("target", targetId)
			.update();
	}

}
