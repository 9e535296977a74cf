-- Returns {ready, dirty (client-go's depth), processing, waiting, dead}.
return {redis.call('LLEN', KEYS[1]), redis.call('HLEN', KEYS[2]), redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[6]), redis.call('LLEN', KEYS[7])}
