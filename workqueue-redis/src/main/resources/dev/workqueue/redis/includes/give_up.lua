-- give_up: keeps an item's given-up record (givenUpKey, indexed by time in givenUpAtKey;
-- see queue_keys), replacing one of the same item, then trims the records to the newest
-- `keep`, each kept `retention_us` after it was given up, and sets both keys to expire
-- when the newest record's retention has passed, so that idle keys go by themselves.
-- The age sweep removes at most GIVEN_UP_SWEEP records a call (the reads skip the rest,
-- older than the retention, until a later call sweeps them); the count trim removes
-- all that are over. The caller checks givenUpKey and givenUpAtKey before its first write.
-- A record is attempts ' ' holder '\n' reason (the holder has no space, see ClockKind).
-- @include queue_keys
local GIVEN_UP_SWEEP = 1000
local function forget_given_up(items)
  for from = 1, #items, GIVEN_UP_SWEEP do
    local part = {unpack(items, from, math.min(#items, from + GIVEN_UP_SWEEP - 1))}
    redis.call('ZREM', givenUpAtKey, unpack(part))
    redis.call('HDEL', givenUpKey, unpack(part))
  end
end
local function give_up(item, attempts, reason, holder, keep, retention_us, now)
  redis.call('HSET', givenUpKey, item, attempts .. ' ' .. holder .. '\n' .. reason)
  redis.call('ZADD', givenUpAtKey, now, item)
  forget_given_up(redis.call('ZRANGEBYSCORE', givenUpAtKey, '-inf', now - retention_us, 'LIMIT', 0,
    GIVEN_UP_SWEEP))
  local over = redis.call('ZCARD', givenUpAtKey) - keep
  if over > 0 then
    forget_given_up(redis.call('ZRANGE', givenUpAtKey, 0, over - 1))
  end
  local ttl_ms = math.ceil(retention_us / 1000)
  redis.call('PEXPIRE', givenUpKey, ttl_ms)
  redis.call('PEXPIRE', givenUpAtKey, ttl_ms)
end
