-- limit_reserve: reserves one token of a shared token bucket (GCRA). "at" is the bucket's
--   theoretical arrival time, when it would be full again: a reservation moves it one period
--   past the later of itself and now (excluded.at is now + period), at most :cap ahead, and the
--   caller waits for what lies beyond the burst's tolerance. The row expires (database time) a
--   minute after the bucket is full again: an expired row is a full bucket.
-- Parameters:
--   :now     the given clock's time on the database, or null for the database's clock
--   :queue   the queue's name
--   :kind    the limiter's kind
--   :item    the encoded item
--   :period  the time one token takes to come back, in µs
--   :cap     how far ahead of now the bucket's time may run at most, in µs
-- Returns: one row: how far the bucket's time now lies ahead of now, in µs
-- Races: the upsert's ON CONFLICT locks the bucket's row before its SET reads it: instances
--   take tokens one after the other.
WITH now AS (SELECT coalesce(:now::timestamptz, statement_timestamp()) AS t),
reserved AS (INSERT INTO {table}_limit AS l (queue, kind, item, at, expires_at)
	SELECT :queue, :kind, :item, now.t + :period * interval '1 microsecond',
		statement_timestamp() + :period * interval '1 microsecond' + interval '1 minute' FROM now
	ON CONFLICT (queue, kind, item) DO UPDATE SET
		at = least(greatest(l.at + :period * interval '1 microsecond', excluded.at),
			excluded.at + :cap * interval '1 microsecond'),
		expires_at = statement_timestamp()
			+ (least(greatest(l.at + :period * interval '1 microsecond', excluded.at),
				excluded.at + :cap * interval '1 microsecond') - excluded.at)
			+ :period * interval '1 microsecond' + interval '1 minute'
	RETURNING at)
SELECT (extract(epoch FROM reserved.at - now.t) * 1000000)::bigint FROM reserved, now
