-- ARGV[3] delay in µs, ARGV[4] item. The earlier ready time wins (ZADD LT also adds a
-- new member). Wakes the tick loops when the item became the first due.
local ready = now_us() + tonumber(ARGV[3])
redis.call('ZADD', KEYS[6], 'LT', ready, ARGV[4])
local first = redis.call('ZRANGE', KEYS[6], 0, 0)
if first[1] == ARGV[4] then
  redis.call('PUBLISH', ARGV[2], 'w')
end
return 1
