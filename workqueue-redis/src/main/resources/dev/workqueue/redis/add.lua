-- add: client-go's add, across every instance.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item
-- Reply: 0 (already queued), 1 (marked dirty while being processed) or 2 (queued)
check(1, 2, 4)
local added = add_item(ARGV[3], now_us())
if added == 2 then
  notify_if_was_empty(1)
end
return added
