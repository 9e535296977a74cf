-- add_item: client-go's add: no-op if dirty; else dirty, and queued unless being
-- processed. Returns 0 (duplicate), 1 (marked dirty while processing) or 2 (queued).
-- @include queue_keys
local function add_item(item, now)
  if redis.call('HSETNX', dirtyKey, item, now) == 0 then
    return 0
  end
  if redis.call('HEXISTS', leasesKey, item) == 1 then
    return 1
  end
  redis.call('RPUSH', queueKey, item)
  return 2
end
