-- pstats: the priority layout's shared figures, in one read.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: nothing more
-- Reply: {ready, dirty (client-go's depth), processing, waiting, dead, µs the item ready
-- longest has been ready (0 when none is)}
local oldest = redis.call('ZRANGE', KEYS[9], 0, 0, 'WITHSCORES')
local age = 0
if oldest[2] then
  age = math.max(0, now_us() - tonumber(oldest[2]))
end
return {redis.call('ZCARD', KEYS[8]), redis.call('HLEN', KEYS[2]), redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[5]), redis.call('LLEN', KEYS[6]), age}
