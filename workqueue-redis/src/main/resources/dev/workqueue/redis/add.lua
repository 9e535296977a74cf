-- ARGV[3] item. Returns add_item's answer.
local added = add_item(ARGV[3], now_us())
if added == 2 then
  notify_if_was_empty(1)
end
return added
