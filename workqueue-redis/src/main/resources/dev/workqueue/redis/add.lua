-- ARGV[3] item. Returns add_item's answer; wakes consumers when the item was queued.
local added = add_item(ARGV[3], now_us())
if added == 2 then
  redis.call('PUBLISH', ARGV[2], 'r')
end
return added
