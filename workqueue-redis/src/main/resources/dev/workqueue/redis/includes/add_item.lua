-- add_item: client-go's add: no-op if dirty; else dirty, and queued unless being
-- processed. Returns 0 (duplicate), 1 (marked dirty while processing) or 2 (queued) and
-- then the list's length. HSETNX is both the duplicate's read and the mark; safe as a
-- script's first write: HSETNX checks its key, and the commands after it take the mark
-- back if their key holds another type.
-- @include queue_keys
-- @include write_or_undo
local function add_item(item, now)
  if redis.call('HSETNX', dirtyKey, item, now) == 0 then
    return 0
  end
  local function unmark()
    redis.call('HDEL', dirtyKey, item)
  end
  if write_or_undo(unmark, 'HEXISTS', leasesKey, item) == 1 then
    return 1
  end
  return 2, write_or_undo(unmark, 'RPUSH', queueKey, item)
end
