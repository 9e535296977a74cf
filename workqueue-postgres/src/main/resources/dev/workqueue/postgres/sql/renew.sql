-- renew: extends leases. Lease rows only: no application locks them, and the statements that
--   end leases lock them only once they hold the item's row, so this never waits long.
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :lease   the lease's length in µs
--   :queue   the queue's name
--   :tokens  the tokens of the leases
-- Returns: the tokens renewed (a token missing was lost)
-- Races: the UPDATE re-checks each lease row after waiting (EvalPlanQual): a lease ended
--   meanwhile is not renewed. It locks the lease rows in token order (= ANY on the primary
--   key), the order the done statements delete them in: a renewal and a done never deadlock.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit})
UPDATE {table}_lease l SET lease_until = (c.now + (clock_timestamp() - statement_timestamp())) + :lease::bigint * interval '1 microsecond'
FROM c WHERE l.queue = :queue AND l.token = ANY(:tokens::bigint[])
RETURNING l.token
