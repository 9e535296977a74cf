-- release: the priority layout's release (see list/release.lua): the item is handed back
-- with the priority it was handed out with, or the higher one of the adds while it was
-- processed, queued again at once or waiting for the delay.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 token, 5 delay in µs (0: at once), 6 as the list
--   layout's, and taken the same way here: a lease keeps neither the item's ready-order
--   number nor since when it was ready, so it lines up at the back of its priority, ready
--   since now
-- Output: 1 if handed back, 0 if the token no longer held the item; a 'w' notice when an
--   item handed back for later is the first due, an 'r' notice when one queued at once
--   found none ready
-- Invariants: every key it may write is checked before the first write.
-- @include queue_keys
-- @include check
-- @include end_lease
-- @include held_priorities
-- @include forget_held
-- @include now_us
-- @include wait_with
-- @include notify
-- @include notify_if_none_was_ready
-- @include add_ready

local item, token, delay_us = ARGV[3], ARGV[4], ARGV[5]

check(dirtyKey, processingKey, leasesKey, waitingKey, readyKey, sinceKey, prioritiesKey, grantsKey)
if not end_lease(item, token) then
  return 0
end
local dirty_priority, priority = held_priorities(item)
forget_held(item)
priority = math.max(priority, dirty_priority or priority)
local now = now_us()
local delay = tonumber(delay_us)
if delay > 0 and not dirty_priority then
  -- As an add-after: the timers learn of the item only from this notice.
  if wait_with(item, now + delay, priority) then
    notify('w')
  end
  return 1
end
notify_if_none_was_ready(add_ready(item, priority, now) / 2)
return 1
