-- prelease: the priority layout's release (see release.lua): the item is handed back
-- with the priority it was handed out with, or the higher one of the adds while it was
-- processed, queued again at once or waiting for the delay.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item, 4 token, 5 delay in µs (0: at once)
-- Reply: 1 if handed back, 0 if the token no longer held the item
check(2, 3, 4, 5, 8, 9, 10)
if not end_lease(ARGV[3], ARGV[4]) then
  return 0
end
local dirty_priority, priority = held_priorities(ARGV[3])
forget_held(ARGV[3])
priority = math.max(priority, dirty_priority or priority)
local now = now_us()
local delay = tonumber(ARGV[5])
if delay > 0 and not dirty_priority then
  wait_with(ARGV[3], now + delay, priority)
  return 1
end
notify_if_none_was_ready(add_ready(ARGV[3], priority, now) / 2)
return 1
