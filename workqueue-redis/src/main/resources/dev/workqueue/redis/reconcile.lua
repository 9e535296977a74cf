-- reconcile: finds the items leased to tokens whose get the caller never heard back from
-- (its connection dropped before the answer), so that it can hand them back instead of
-- leaving them leased to nobody until the lease runs out. Rare: it reads every lease.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3.. the tokens
-- Reply: pairs of item and token, for the tokens that hold an item
local wanted = {}
for i = 3, #ARGV do
  wanted[ARGV[i]] = true
end
local found = {}
local leases = redis.call('HGETALL', KEYS[4])
for i = 1, #leases, 2 do
  if wanted[leases[i + 1]] then
    found[#found + 1] = leases[i]
    found[#found + 1] = leases[i + 1]
  end
end
return found
