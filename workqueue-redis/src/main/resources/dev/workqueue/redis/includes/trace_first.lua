-- trace_first: whether an add of an item now would be its first effective one since it
-- was last handed out: it is neither dirty (added, not yet handed out) nor waiting. Read
-- only by an add that carries a context, before it writes.
-- @include queue_keys
local function trace_first(item)
  return redis.call('HEXISTS', dirtyKey, item) == 0 and not redis.call('ZSCORE', waitingKey, item)
end
