-- done_list: the list layout's done: ends the processing of an item if the token still
-- holds it. Returns 0 (stale: the lease was lost, nothing changes: the fence), 1 (done)
-- or 2 (done, and queued again because it was added while being processed). Run again,
-- it finds the lease ended: 0, and nothing changes. Reads first; ZREM is the first write
-- and checks its key; the grant is forgotten last, and a grants key of another type holds
-- no grant to forget (pcall), so a key of another type fails the script before it writes.
-- @include queue_keys
-- @include push_ready
local function done_list(item, token)
  if redis.call('HGET', leasesKey, item) ~= token then
    return 0
  end
  local dirty = redis.call('HEXISTS', dirtyKey, item) == 1
  local length = dirty and redis.call('LLEN', queueKey) or 0
  redis.call('ZREM', processingKey, item)
  redis.call('HDEL', leasesKey, item)
  redis.pcall('HDEL', grantsKey, string.match(token, '^[^.]*'))
  if not dirty then
    return 1
  end
  push_ready(item, length)
  return 2
end
