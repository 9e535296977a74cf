-- give_up: keeps an item's given-up record (givenUpKey, indexed by time in givenUpAtKey;
-- see queue_keys), replacing one of the same item, then bounds the records: trims them to
-- the newest `keep`, each kept `retention_us` after it was given up, and sets both keys
-- to expire when the newest record's retention has passed, so that idle keys go by
-- themselves. Each call removes at most GIVEN_UP_SWEEP records by age and as many over
-- the count, so that no call blocks Redis however far the records are over (a lowered
-- keep, or instances with different ones): the reads skip the records past their
-- retention, and each later call removes more of those over the count than it adds,
-- until the records are within the bound. The caller checks givenUpKey and givenUpAtKey
-- before its first write.
-- A record is attempts ' ' holder '\n' reason (the holder has no space, see ClockKind).
-- @include queue_keys
local GIVEN_UP_SWEEP = 1000
local function forget_given_up(items)
  if #items > 0 then
    redis.call('ZREM', givenUpAtKey, unpack(items))
    redis.call('HDEL', givenUpKey, unpack(items))
  end
end
local function keep_given_up_record(item, attempts, reason, holder, now)
  redis.call('HSET', givenUpKey, item, attempts .. ' ' .. holder .. '\n' .. reason)
  redis.call('ZADD', givenUpAtKey, now, item)
end
local function bound_given_up(keep, retention_us, now)
  forget_given_up(redis.call('ZRANGEBYSCORE', givenUpAtKey, '-inf', now - retention_us, 'LIMIT', 0,
    GIVEN_UP_SWEEP))
  local over = math.min(redis.call('ZCARD', givenUpAtKey) - keep, GIVEN_UP_SWEEP)
  if over > 0 then
    forget_given_up(redis.call('ZRANGE', givenUpAtKey, 0, over - 1))
  end
  local ttl_ms = math.ceil(retention_us / 1000)
  redis.call('PEXPIRE', givenUpKey, ttl_ms)
  redis.call('PEXPIRE', givenUpAtKey, ttl_ms)
end
local function give_up(item, attempts, reason, holder, keep, retention_us, now)
  keep_given_up_record(item, attempts, reason, holder, now)
  bound_given_up(keep, retention_us, now)
end
