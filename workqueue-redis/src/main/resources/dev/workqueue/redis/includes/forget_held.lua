-- forget_held: forgets the priorities of an item whose lease ended.
-- @include queue_keys
local function forget_held(item)
  redis.call('HDEL', prioritiesKey, 'h' .. item, 'd' .. item)
end
