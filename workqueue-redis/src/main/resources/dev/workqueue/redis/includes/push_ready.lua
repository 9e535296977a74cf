-- push_ready: pushes an item onto the ready list whose length was read before, and wakes
-- the consumers of every instance if it was empty (see notify_if_was_empty).
-- @include queue_keys
-- @include notify
local function push_ready(item, length_before)
  redis.call('RPUSH', queueKey, item)
  if length_before == 0 then
    notify('r')
  end
end
