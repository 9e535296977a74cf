-- end_lease: ends the lease of an item if the token still holds it; false (a fenced-off
-- former holder, or the same call run again) if not. The caller checks grantsKey.
-- @include queue_keys
-- @include grant
-- @include lease_value
local function end_lease(item, token)
  if lease_token(redis.call('HGET', leasesKey, item)) ~= token then
    return false
  end
  forget_grant(token)
  redis.call('HDEL', leasesKey, item)
  redis.call('ZREM', processingKey, item)
  return true
end
