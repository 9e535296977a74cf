-- reconcile: finds the items leased to tokens whose get the caller never heard back from
-- (its connection dropped before the answer), so that it can hand them back instead of
-- leaving them leased to nobody until the lease runs out. Rare: it reads every lease.
-- Either layout.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3.. the tokens
-- Output: pairs of item and token, for the tokens that hold an item
-- Invariants: writes nothing.
-- @include queue_keys
-- @include lease_value

-- The tokens are ARGV[3] to ARGV[#ARGV] (as many as the caller sends).
local FIRST_TOKEN = 3

local wanted = {}
for i = FIRST_TOKEN, #ARGV do
  wanted[ARGV[i]] = true
end
local found = {}
local leases = redis.call('HGETALL', leasesKey)
for i = 1, #leases, 2 do
  local token = lease_token(leases[i + 1])
  if wanted[token] then
    found[#found + 1] = leases[i]
    found[#found + 1] = token
  end
end
return found
