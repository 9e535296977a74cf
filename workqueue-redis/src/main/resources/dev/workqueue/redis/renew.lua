-- renew: extends each lease still held by the given token.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 lease in µs, then pairs of item and token
-- Reply: the tokens whose lease was lost
check(3, 4)
local expiry = now_us() + tonumber(ARGV[3])
local lost = {}
for i = 4, #ARGV, 2 do
  if redis.call('HGET', KEYS[4], ARGV[i]) == ARGV[i + 1] then
    redis.call('ZADD', KEYS[3], 'XX', expiry, ARGV[i])
  else
    lost[#lost + 1] = ARGV[i + 1]
  end
end
return lost
