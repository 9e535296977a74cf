-- end_lease: ends the lease of an item if the token still holds it; false (a fenced-off
-- former holder) if not.
-- @include queue_keys
local function end_lease(item, token)
  if redis.call('HGET', leasesKey, item) ~= token then
    return false
  end
  redis.call('HDEL', leasesKey, item)
  redis.call('ZREM', processingKey, item)
  return true
end
