-- held_priorities: the priorities of an item being processed: the highest of the adds
-- while it was processing (nil if none), and the one it was handed out with.
-- @include queue_keys
local function held_priorities(item)
  local p = redis.call('HMGET', prioritiesKey, 'h' .. item, 'd' .. item)
  return tonumber(p[2]), tonumber(p[1] or 0)
end
