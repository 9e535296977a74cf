-- pause: sets or clears the queue's paused flag, which every lease reads first
-- (includes/lease_list.lua, includes/lease_priority.lua): while it is set, no instance
-- hands out an item. Clearing it wakes the waiting consumers of every instance as an add
-- does (an 'r' notice, which arms the wake list), when items are ready. Either layout.
-- Run again, it finds the flag as the first run left it, and neither writes nor wakes.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 '1' to pause, '0' to resume
-- Output: 1 if the flag changed, else 0
-- Invariants: the flag's key is checked before the write; the notice is the last command.
-- @include queue_keys
-- @include check
-- @include notify

local pause = ARGV[3] == '1'

check(pausedKey)
if pause then
  return redis.call('SET', pausedKey, '1', 'NX') and 1 or 0
end
if redis.call('DEL', pausedKey) == 0 then
  return 0
end
if redis.call('EXISTS', queueKey, readyKey) > 0 then
  notify('r')
end
return 1
