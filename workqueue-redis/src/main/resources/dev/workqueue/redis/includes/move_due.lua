-- move_due: moves the waiting items due at `now` (at most `batch`) with
-- queue_due(item, now), which returns true if it queued the item; checks the keys it
-- writes (checks) first, as a move is rare. Returns how many moved and how many were
-- queued. DUE_BATCH: the most due items an add or a lease moves first; the tick moves
-- the rest.
-- @include queue_keys
-- @include check
local DUE_BATCH = 100
local function move_due(now, batch, queue_due, checks)
  local due = redis.call('ZRANGEBYSCORE', waitingKey, '-inf', now, 'LIMIT', 0, batch)
  if #due == 0 then
    return 0, 0
  end
  check(unpack(checks))
  redis.call('ZREM', waitingKey, unpack(due))
  local queued = 0
  for _, item in ipairs(due) do
    if queue_due(item, now) then
      queued = queued + 1
    end
  end
  return #due, queued
end
