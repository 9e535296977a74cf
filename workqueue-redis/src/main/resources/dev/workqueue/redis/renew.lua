-- ARGV[3] lease in µs, then pairs of item and token. Extends each lease still held by
-- that token; returns the items whose lease was lost.
local expiry = now_us() + tonumber(ARGV[3])
local lost = {}
for i = 4, #ARGV, 2 do
  if redis.call('HGET', KEYS[4], ARGV[i]) == ARGV[i + 1] then
    redis.call('ZADD', KEYS[3], 'XX', expiry, ARGV[i])
  else
    lost[#lost + 1] = ARGV[i]
  end
end
return lost
