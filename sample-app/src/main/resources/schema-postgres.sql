-- The sample's outbox with the "postgres" profile (PostgresOutbox), run by spring.sql.init at
-- every start-up: one row per staged payload until it is delivered or dropped; taken marks the
-- payloads a delivery attempt took. The queues' own table is created by the starter
-- (workqueue.postgres.initialize-schema), after this script.
CREATE TABLE IF NOT EXISTS webhook_payload (
	id        bigserial PRIMARY KEY,
	target_id text      NOT NULL,
	payload   text      NOT NULL,
	taken     boolean   NOT NULL DEFAULT false
);

-- Every statement of the outbox reads one target's payloads.
CREATE INDEX IF NOT EXISTS webhook_payload_target ON webhook_payload (target_id, id);
