-- stats: the priority layout's shared figures, in one read.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), nothing more
-- Output: {ready, dirty (client-go's depth), processing, waiting, given-up records (as
-- list/stats.lua's), µs the item ready longest has been ready (0 when none is)}
-- Invariants: writes nothing.
-- @include queue_keys
-- @include now_us

local oldest = redis.call('ZRANGE', sinceKey, 0, 0, 'WITHSCORES')
local age = 0
if oldest[2] then
  age = math.max(0, now_us() - tonumber(oldest[2]))
end
return {redis.call('ZCARD', readyKey), redis.call('HLEN', dirtyKey), redis.call('ZCARD', processingKey),
  redis.call('ZCARD', waitingKey), redis.call('ZCARD', givenUpAtKey), age}
