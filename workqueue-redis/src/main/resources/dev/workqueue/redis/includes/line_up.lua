-- line_up: the priority layout's (readyKey, sinceKey, prioritiesKey; an item is ready
-- when priorities has its 'r' field): lines an item up at the back of its priority,
-- ready since the µs `since` with the since number `since_order` (nil: a new one, now).
-- The ready-order number is the first write: when it cannot be incremented (past
-- 2^63 - 1), nothing is written. HINCRBY's reply is a double, exact below 2^53; from
-- there the number is read as the string it is.
-- @include queue_keys
local function line_up(item, priority, since, since_order)
  local order = redis.call('HINCRBY', prioritiesKey, '#', 1)
  if order < 2^53 then
    order = string.format('%019.0f', order)
  else
    order = redis.call('HGET', prioritiesKey, '#')
    order = string.rep('0', 19 - #order) .. order
  end
  redis.call('ZADD', readyKey, 0 - priority, order .. ':' .. item)
  if not since_order then
    since_order = order
    redis.call('ZADD', sinceKey, since, order .. ':' .. item)
  end
  redis.call('HSET', prioritiesKey, 'r' .. item, order .. since_order)
end
