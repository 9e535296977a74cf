-- bucket: reserves one token of a token bucket as golang.org/x/time/rate's Limiter does:
-- the count may go below zero, and the reply is how long until the reservation is good.
-- The key expires once the bucket would be full again, so idle buckets cost nothing.
-- Input: KEYS 1 the bucket (HASH t: tokens, at: µs of that count); ARGV 1 now in µs, or
--   '' for the server's clock, 2 tokens per second, 3 burst
-- Output: the wait in µs
-- Invariants: everything is computed before the first write, so that no write is left
-- half done.
local bucketKey = KEYS[1]
local givenNow, rate, burst = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])

local now
if givenNow ~= '' then
  now = tonumber(givenNow)
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local state = redis.call('HMGET', bucketKey, 't', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
if now > at then
  tokens = math.min(burst, tokens + (now - at) * rate / 1000000)
  at = now
end
tokens = tokens - 1
local wait = 0
if tokens < 0 then
  wait = math.min(math.ceil(-tokens * 1000000 / rate), 2^52)
end
-- Kept to a time to live PEXPIRE takes (a rate near zero would make it overflow).
local ttl = math.min(math.ceil((burst - tokens) * 1000 / rate) + 1000, 2^52)
-- Numbers go to Redis exactly (Lua's tostring would round them).
redis.call('HSET', bucketKey, 't', tokens, 'at', at)
redis.call('PEXPIRE', bucketKey, ttl)
return wait
