-- KEYS[1] a token bucket (HASH t: tokens, at: µs of that count). ARGV[3] tokens per
-- second, ARGV[4] burst. Reserves one token as golang.org/x/time/rate's Limiter does:
-- the count may go below zero, and the answer is how long, in µs, until the reservation
-- is good. The key expires once the bucket would be full again, so idle buckets cost
-- nothing.
local now = now_us()
local rate = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
if now > at then
  tokens = math.min(burst, tokens + (now - at) * rate / 1000000)
  at = now
end
tokens = tokens - 1
local wait = 0
if tokens < 0 then
  wait = math.ceil(-tokens * 1000000 / rate)
end
-- Numbers go to Redis exactly (Lua's tostring would round them).
redis.call('HSET', KEYS[1], 't', tokens, 'at', at)
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) * 1000 / rate) + 1000)
return wait
