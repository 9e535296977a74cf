-- stats: the shared figures, in one read.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: nothing more
-- Reply: {ready, dirty (client-go's depth), processing, waiting, dead}
return {redis.call('LLEN', KEYS[1]), redis.call('HLEN', KEYS[2]), redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[5]), redis.call('LLEN', KEYS[6])}
