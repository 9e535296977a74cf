-- stats: the shared figures, in one read.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), nothing more
-- Output: {ready, dirty (client-go's depth), processing, waiting, given-up records (those
-- past their retention not swept yet included)}
-- Invariants: writes nothing.
-- @include queue_keys

return {redis.call('LLEN', queueKey), redis.call('HLEN', dirtyKey), redis.call('ZCARD', processingKey),
  redis.call('ZCARD', waitingKey), redis.call('ZCARD', givenUpAtKey)}
