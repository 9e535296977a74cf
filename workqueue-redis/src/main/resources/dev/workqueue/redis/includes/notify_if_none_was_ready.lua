-- notify_if_none_was_ready: wakes the consumers of every instance if the ready set holds
-- just what was lined up: a consumer sleeps only after finding it empty (see
-- notify_if_was_empty).
-- @include queue_keys
-- @include notify
local function notify_if_none_was_ready(lined_up)
  if lined_up > 0 and redis.call('ZCARD', readyKey) == lined_up then
    notify('r')
  end
end
