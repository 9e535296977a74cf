-- run_tick: the tick of either layout (see list/tick.lua): moves due waiting items with
-- queue_due(item, now) and hands the items whose lease expired back with
-- queue_expired(item, now), at most `batch` of each (each returns true if it queued the
-- item), checking the keys they write (checks) first; keeps the reporter role for the
-- handle `handle`, renewed for `role_ms`, and, while it holds the role, sets the queue's mark
-- to `mark` where the mark was lost (evicted, or gone with a restart of a Redis that keeps
-- nothing: mark.lua would take the live reporter for a handle of the previous release);
-- wakes the consumers with
-- notify_queued(queued); counts the ready items with count_ready(), and arms the wake
-- list when any is ready (insurance against a wake-up lost with a consumer that gave up
-- before it looked: some waiting consumer looks within a heartbeat). Every read comes
-- before the first write, so an idle tick checks no type by itself.
-- @include queue_keys
-- @include now_us
-- @include until_first
-- @include move_due
-- @include check
-- @include grant
-- @include notify
local function run_tick(batch, handle, role_ms, mark, queue_due, checks, queue_expired, notify_queued, count_ready)
  local now = now_us()
  local holder = redis.call('GET', reporterKey)
  local moved, queued = 0, 0
  local next_due = until_first(waitingKey, now)
  if next_due == 0 then
    moved, queued = move_due(now, batch, queue_due, checks)
    next_due = until_first(waitingKey, now)
  end
  local reaped = 0
  local next_expiry = until_first(processingKey, now)
  if next_expiry == 0 then
    check(grantsKey, unpack(checks))
    local expired = redis.call('ZRANGEBYSCORE', processingKey, '-inf', now, 'LIMIT', 0, batch)
    for _, item in ipairs(expired) do
      local holder = redis.call('HGET', leasesKey, item)
      if holder then
        forget_grant(holder)
      end
      redis.call('ZREM', processingKey, item)
      redis.call('HDEL', leasesKey, item)
      if queue_expired(item, now) then
        queued = queued + 1
      end
    end
    reaped = #expired
    next_expiry = until_first(processingKey, now)
  end
  local ready = count_ready()
  if ready > 0 then
    arm(true)
  end
  local reporter = 0
  if not holder then
    redis.call('SET', reporterKey, handle, 'PX', role_ms)
    reporter = 1
  elseif holder == handle then
    redis.call('PEXPIRE', reporterKey, role_ms)
    reporter = 1
  end
  if reporter == 1 then
    redis.call('SET', markKey, mark, 'NX')
  end
  notify_queued(queued)
  return {moved, reaped, next_due, next_expiry, ready, reporter}
end
