-- notify_if_was_empty: wakes the consumers of every instance if the ready list holds
-- just what was pushed: a consumer sleeps only after finding it empty, and one that finds
-- more after its item wakes the next one in its own instance.
-- @include queue_keys
-- @include notify
local function notify_if_was_empty(pushed)
  if pushed > 0 and redis.call('LLEN', queueKey) == pushed then
    notify('r')
  end
end
