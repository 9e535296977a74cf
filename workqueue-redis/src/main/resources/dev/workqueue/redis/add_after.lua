-- add_after: puts an item in the waiting set; the earlier ready time wins (ZADD LT also
-- adds a new member). Wakes the instances' timers when the item became the first due.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 delay in µs (at most 2^52, so that the sum stays an exact double), 4 item
-- Reply: 1
check(5)
local ready = now_us() + tonumber(ARGV[3])
redis.call('ZADD', KEYS[5], 'LT', ready, ARGV[4])
local first = redis.call('ZRANGE', KEYS[5], 0, 0)
if first[1] == ARGV[4] then
  notify('w')
end
return 1
