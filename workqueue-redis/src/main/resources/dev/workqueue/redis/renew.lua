-- renew: extends each lease still held by the given token. Either layout.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 lease in µs, then pairs of item and token
-- Output: the tokens whose lease was lost
-- Invariants: the two keys it reads or writes are checked first; a lost lease is never
-- renewed (ZADD XX, and only for the token that holds it).
-- @include queue_keys
-- @include check
-- @include now_us
-- @include lease_value

-- The pairs are ARGV[4] and ARGV[5], ARGV[6] and ARGV[7], ... (as many as the caller sends).
local lease_us, FIRST_PAIR = ARGV[3], 4

check(processingKey, leasesKey)
local expiry = now_us() + tonumber(lease_us)
local lost = {}
for i = FIRST_PAIR, #ARGV, 2 do
  if lease_token(redis.call('HGET', leasesKey, ARGV[i])) == ARGV[i + 1] then
    redis.call('ZADD', processingKey, 'XX', expiry, ARGV[i])
  else
    lost[#lost + 1] = ARGV[i + 1]
  end
end
return lost
