-- now_us: the script's time in µs: the caller's clock if it gave one, else the server's.
-- @include queue_keys
local function now_us()
  if givenNow ~= '' then
    return tonumber(givenNow)
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
