-- release: the holder hands the item back unprocessed (a shutdown, a failed attempt while
-- its instance shuts down, or a lease its instance cannot use): queued again at once, or
-- waiting for the delay, instead of waiting for its lease to run out.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 token, 5 delay in µs (0: at once), 6 '1' to queue
--   it at once in its place in line, the head it was leased from (an item leased ahead and
--   not used), '0' at the tail
-- Output: 1 if handed back, 0 if the token no longer held the item; a 'w' notice when an
--   item handed back for later is the first due, an 'r' notice when one queued at once
--   found the list empty
-- Invariants: every key it may write is checked before the first write.
-- @include queue_keys
-- @include check
-- @include end_lease
-- @include now_us
-- @include notify
-- @include notify_if_was_empty

local item, token, delay_us, in_place = ARGV[3], ARGV[4], ARGV[5], ARGV[6] == '1'

check(queueKey, dirtyKey, processingKey, leasesKey, waitingKey, grantsKey)
if not end_lease(item, token) then
  return 0
end
local now = now_us()
local delay = tonumber(delay_us)
if delay > 0 and redis.call('HEXISTS', dirtyKey, item) == 0 then
  redis.call('ZADD', waitingKey, 'LT', now + delay, item)
  -- As an add-after: the timers learn of the item only from this notice.
  if redis.call('ZRANGE', waitingKey, 0, 0)[1] == item then
    notify('w')
  end
  return 1
end
redis.call('HSETNX', dirtyKey, item, now)
redis.call(in_place and 'LPUSH' or 'RPUSH', queueKey, item)
notify_if_was_empty(1)
return 1
