-- until_first: microseconds from now until the earliest score of a ZSET, or -1 when it
-- is empty.
local function until_first(key, now)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] == nil then
    return -1
  end
  return math.max(0, tonumber(first[2]) - now)
end
