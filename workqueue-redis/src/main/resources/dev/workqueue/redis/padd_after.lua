-- padd_after: the priority layout's add_after: puts an item in the waiting set, where it
-- keeps the earliest ready time and the highest priority of its adds. Wakes the
-- instances' timers when the item became the first due.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 delay in µs (at most 2^52, so that the sum stays an exact double), 4 item,
-- 5 priority
-- Reply: 1
check(5)
if wait_with(ARGV[4], now_us() + tonumber(ARGV[3]), tonumber(ARGV[5])) then
  notify('w')
end
return 1
