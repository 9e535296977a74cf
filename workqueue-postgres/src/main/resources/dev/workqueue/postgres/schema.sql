-- workqueue's PostgreSQL schema for one queue table, {table}, which any number of queues share
-- (the queue column tells them apart). Idempotent: every object is created IF NOT EXISTS and the
-- storage settings are re-applied, so it runs at every start-up or from a migration alike.
-- PostgresWorkQueues.schema(table) fills in {table} (possibly schema-qualified), {name} (the
-- table's own name, which the indexes are named after) and {schema} (the table's schema and a dot,
-- or nothing). An index is created only where to_regclass does not find it: CREATE INDEX takes
-- its lock on the table before it looks whether the index exists, and would wait for every open
-- transaction that added to a queue (and hold up every instance's queue writes meanwhile).
--
-- {table}: one row per (queue, item) from the item's first add until the done that finishes it;
-- a done deletes the row, so the table holds only live items.
--   queue          the queue's name
--   item           the item, as its codec encodes it: its identity (client-go's dedup key)
--   state          0 queued: ready once ready_at has passed, waiting (delayed) before that;
--                  1 processing: handed out under the lease below
--   priority       queued: the priority it is handed out by (highest first); processing: the one
--                  it was handed out with
--   ready_at       queued: when it became, or becomes, ready; items of one priority are handed out
--                  in this order (FIFO), ties broken by seq
--   seq            a number from {table}_token taken when the item lined up: the FIFO tie-break
--   dirty_at       processing: it was added again meanwhile (client-go's dirty set), to be ready
--                  at this time, the earliest of those adds; null while not dirty
--   dirty_priority processing and dirty: the highest priority of those adds
--   token          processing: the lease's fencing token, from {table}_token; a done or a hand-back
--                  that names another token changes nothing
--   holder         processing: the handle that holds the lease (for diagnostics, and to find the
--                  leases of its claims whose answer was lost)
--   lease_until    null: the lease is kept in {table}_lease. Only a release before that table
--                  wrote it (its processing rows, read until their lease runs out, then queued
--                  again as any expired lease)
--   trace          the trace contexts of the item's adds since its last hand-out, when any had one
--                  (a queue with a TraceContextSource): the parent ('' for none), then a line
--                  break and a link for each later add, at most 8 links of at most 2048
--                  characters each; null otherwise. Written by the adds, taken (cleared) by the
--                  claim that hands the item out, deleted with the row. Added by this script to a
--                  table made before it had this column.
--
-- {table}_lease: one row per lease of a processing item, written by the claim (or the leasing
-- add, add_batch_leasing.sql) that leases it,
-- renewed here by its holder, deleted with the lease (done, hand-back, expiry) in the same
-- statement that ends it in {table}. Kept apart from the items because applications lock item
-- rows (a re-add of an item being processed, in a transaction that stays open; an operator's
-- SELECT ... FOR UPDATE): no application writes or locks this table, so a renewal never waits
-- for one, and an item whose row is locked keeps its lease.
--   token          the lease's fencing token (the item row's token)
--   queue, item    the item it leases
--   holder         the handle that holds it (for diagnostics)
--   lease_until    when the lease runs out unless it is renewed; then the item is queued again
--                  (at-least-once)
--   leased_at      when the claim handed it out, on the queue's clock (the inspection's time of
--                  a processing item); a renewal leaves it. Null for a lease written by a release
--                  before this column, which this script adds to a table made before it (last,
--                  as here).
--
-- {table}_given_up: the items given up on, one row per (queue, item), shared by the instances: a
-- worker's give-up (QueueInspector#keepGivenUp) and a payload the codec cannot decode. Each write
-- keeps the queue's newest records up to its bound (the builder's givenUp: how many, for how
-- long) and deletes the others; an item given up again replaces its record.
--   attempts       the failed attempts counted when it was given up (0 for a payload not decoded)
--   reason         why: the last failure, or why the codec could not decode it (or the decoded
--                  item's hashCode or equals threw)
--   holder         the handle that gave it up (null for a record moved from a 'dead-letter' row)
--   given_up_at    when, on the queue's clock
--
-- {table}_token: fencing tokens and FIFO tie-breaks. A sequence never hands out a number twice,
-- also after rows are deleted or the table is emptied (it is not owned by the table, so TRUNCATE
-- ... RESTART IDENTITY leaves it alone).
--
-- {table}_limit: what the shared rate limiters and max-retries remember, one row per (queue,
-- kind, item): failure counts, token buckets' state, and the role of the handle that reports the
-- shared gauges.
--   kind           'failures:<limiter>', 'bucket', 'item-bucket', 'gauges', 'paused' or 'mark'
--   item           the encoded item, or '' for a row of the whole queue
--   count          failures: how many since the item's last success or give-up
--   at             buckets: the theoretical arrival time (GCRA); gauges: when the role lapses
--   holder         gauges: the reporting handle
--   expires_at     when the row may be deleted (history without activity is forgotten)
--   The queue's pause (QueueInspector#pause) is kind 'paused': item = '', at = when, holder = the
--   handle that paused it, expires_at = 'infinity'; while the row exists every claim hands out
--   nothing.
--   A release before given-up records kept payloads the codec could not decode here, as kind
--   'dead-letter' (item = the payload, count = how often, at = the last time, holder = why): this
--   script moves them into {table}_given_up.
--   The queue's mark, written by its first handle and checked by every build, is kind 'mark':
--   item = '', count = the format its rows are stored in, holder = the kind of clock that times
--   them ('database' or 'given'), expires_at = 'infinity' (see StoreMark).

CREATE SEQUENCE IF NOT EXISTS {table}_token AS bigint;

CREATE TABLE IF NOT EXISTS {table} (
	queue          text        NOT NULL,
	item           text        NOT NULL,
	state          smallint    NOT NULL CHECK (state IN (0, 1)),
	priority       integer     NOT NULL,
	ready_at       timestamptz NOT NULL,
	seq            bigint      NOT NULL,
	dirty_at       timestamptz,
	dirty_priority integer,
	token          bigint,
	holder         text,
	lease_until    timestamptz,
	trace          text,
	PRIMARY KEY (queue, item)
);

-- A table made by a release before trace contexts: the column is added once. Looked up first, as
-- the indexes below are: ALTER TABLE takes its lock on the table before it looks whether the
-- column exists. Nullable without a default, so the ALTER rewrites no row.
DO $$ BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('{schema}{name}')
			AND attname = 'trace' AND NOT attisdropped) THEN
		ALTER TABLE {table} ADD COLUMN IF NOT EXISTS trace text;
	END IF;
END $$;

-- Every item passes through the table as an insert, two updates and a delete, so dead rows come
-- fast and in proportion to throughput, not to the table's size: vacuum after a fixed number of
-- them rather than a fraction of the table, and without the cost-based pauses. Rows are small and
-- updated in place, so pages keep room for the new versions. No vacuum gives the empty pages at
-- the end of the table (or of its TOAST table) back: that needs the table's ACCESS EXCLUSIVE
-- lock, which a vacuum asks for every 50 ms for up to 5 s and, once it has it, holds until it
-- sees another session wait (at most about 20 ms), so every instance's adds, claims and dones wait
-- meanwhile (and a hot standby's readers conflict with it), for pages the next items fill again.
ALTER TABLE {table} SET (
	fillfactor = 80,
	vacuum_truncate = false,
	toast.vacuum_truncate = false,
	autovacuum_vacuum_scale_factor = 0,
	autovacuum_vacuum_threshold = 2000,
	autovacuum_vacuum_insert_scale_factor = 0,
	autovacuum_vacuum_insert_threshold = 2000,
	autovacuum_analyze_scale_factor = 0,
	autovacuum_analyze_threshold = 5000,
	autovacuum_vacuum_cost_delay = 0
);

-- The claim of a priority queue: the ready items of one queue, highest priority first, FIFO
-- within a priority.
DO $$ BEGIN
	IF to_regclass('{schema}{name}_ready') IS NULL THEN
		CREATE INDEX IF NOT EXISTS {name}_ready ON {table} (queue, priority DESC, ready_at, seq) WHERE state = 0;
	END IF;
END $$;

-- The claim of a queue without priorities, the starvation guard's claim (the items ready the
-- longest), and the next due time of the delayed items.
DO $$ BEGIN
	IF to_regclass('{schema}{name}_due') IS NULL THEN
		CREATE INDEX IF NOT EXISTS {name}_due ON {table} (queue, ready_at, seq) WHERE state = 0;
	END IF;
END $$;

-- The sweep that queues again the items whose lease, kept here by a release before
-- {table}_lease, ran out.
DO $$ BEGIN
	IF to_regclass('{schema}{name}_leases') IS NULL THEN
		CREATE INDEX IF NOT EXISTS {name}_leases ON {table} (queue, lease_until) WHERE state = 1;
	END IF;
END $$;

CREATE TABLE IF NOT EXISTS {table}_lease (
	token       bigint      PRIMARY KEY,
	queue       text        NOT NULL,
	item        text        NOT NULL,
	holder      text        NOT NULL,
	lease_until timestamptz NOT NULL,
	leased_at   timestamptz
);

-- A lease table made by a release before hand-out times: the column is added once, looked up
-- first as trace is. Nullable without a default, so the ALTER rewrites no row, and the leases
-- already held read as not known (null). The claims write it on the queue's clock: a default of
-- now() would also add no rewrite on PostgreSQL 15 (a non-volatile default is kept in the
-- catalog), but it would stamp the leases already held with the time of the upgrade, and new ones
-- with the database's clock where the queue runs on a given clock.
DO $$ BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('{schema}{name}_lease')
			AND attname = 'leased_at' AND NOT attisdropped) THEN
		ALTER TABLE {table}_lease ADD COLUMN IF NOT EXISTS leased_at timestamptz;
	END IF;
END $$;

-- Every lease is an insert, an update per renewal and a delete: as the queue table, vacuumed
-- after a fixed number of dead rows, without giving empty pages back; updated in place.
ALTER TABLE {table}_lease SET (
	fillfactor = 70,
	vacuum_truncate = false,
	toast.vacuum_truncate = false,
	autovacuum_vacuum_scale_factor = 0,
	autovacuum_vacuum_threshold = 2000,
	autovacuum_vacuum_insert_scale_factor = 0,
	autovacuum_vacuum_insert_threshold = 2000,
	autovacuum_analyze_scale_factor = 0,
	autovacuum_analyze_threshold = 5000,
	autovacuum_vacuum_cost_delay = 0
);

-- The sweep that queues again the items whose lease ran out.
DO $$ BEGIN
	IF to_regclass('{schema}{name}_lease_ends') IS NULL THEN
		CREATE INDEX IF NOT EXISTS {name}_lease_ends ON {table}_lease (queue, lease_until);
	END IF;
END $$;

CREATE TABLE IF NOT EXISTS {table}_limit (
	queue      text        NOT NULL,
	kind       text        NOT NULL,
	item       text        NOT NULL,
	count      integer     NOT NULL DEFAULT 0,
	at         timestamptz,
	holder     text,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (queue, kind, item)
);

-- Every claim reads it (the paused flag) and the dones write it (forgotten histories): as the
-- queue table, no vacuum gives its empty pages back.
ALTER TABLE {table}_limit SET (vacuum_truncate = false, toast.vacuum_truncate = false);

-- The sweep that forgets the history nobody touched for longer than it is kept.
DO $$ BEGIN
	IF to_regclass('{schema}{name}_limit_expiry') IS NULL THEN
		CREATE INDEX IF NOT EXISTS {name}_limit_expiry ON {table}_limit (expires_at);
	END IF;
END $$;

CREATE TABLE IF NOT EXISTS {table}_given_up (
	queue       text        NOT NULL,
	item        text        NOT NULL,
	attempts    integer     NOT NULL,
	reason      text        NOT NULL,
	holder      text,
	given_up_at timestamptz NOT NULL,
	PRIMARY KEY (queue, item)
);

-- The records newest first (the console's list, the trim to the bound), and those past their
-- retention. Spelled "givenup": PostgreSQL cuts names at 63 bytes, and a name that began as the
-- table's does ("_given_up_at") would, cut for a long table name, be the table's own, and the
-- index would be taken as made.
DO $$ BEGIN
	IF to_regclass('{schema}{name}_givenup_at') IS NULL THEN
		CREATE INDEX IF NOT EXISTS {name}_givenup_at ON {table}_given_up (queue, given_up_at);
	END IF;
END $$;

-- The dead letters of a release before given-up records, moved once: the row goes, a record
-- comes (a newer record of the same item stays). Looked up first, so that a run with nothing to
-- move writes nothing; a scan of {table}_limit, which has no index on kind.
DO $$ BEGIN
	IF EXISTS (SELECT 1 FROM {table}_limit WHERE kind = 'dead-letter') THEN
		WITH moved AS (DELETE FROM {table}_limit WHERE kind = 'dead-letter'
			RETURNING queue, item, holder, coalesce(at, now()) AS at)
		INSERT INTO {table}_given_up AS g (queue, item, attempts, reason, holder, given_up_at)
		SELECT queue, item, 0, coalesce(holder, ''), NULL, at FROM moved
		ON CONFLICT (queue, item) DO UPDATE SET attempts = EXCLUDED.attempts, reason = EXCLUDED.reason,
			holder = EXCLUDED.holder, given_up_at = EXCLUDED.given_up_at
		WHERE EXCLUDED.given_up_at > g.given_up_at;
	END IF;
END $$;
