-- lease_value: what the leases hash keeps for a held item: its holder's token, then '.@'
-- and the µs the lease was granted (the inspection's "at", which a renewal keeps), so
-- that one HSET of a get writes both and whatever ends the lease deletes both. The '.'
-- keeps token_of's rule: the get's own token is what comes before the first '.', which
-- forget_grant takes (this release's and the previous one's). A lease the previous
-- release granted holds its token alone: lease_token reads it as it is, and it has no
-- time (lease_granted_at answers nil; the readers take its expiry less the lease).
-- lease_token ends the token at the first '.@' (a token holds no '@', see LeaseTokens),
-- whatever the time after it, one that formats negative (a store clock before 1970)
-- included: a value read whole as the token would make each renew or done a silent
-- no-op. lease_granted_at's pattern takes the sign too.
local function lease_value(token, now)
  return token .. '.@' .. string.format('%.0f', now)
end
local function lease_token(value)
  -- A plain find, not a pattern: a third of the time, on every done and renewal.
  local at = value and string.find(value, '.@', 1, true)
  return at and string.sub(value, 1, at - 1) or value
end
local function lease_granted_at(value)
  return value and tonumber(string.match(value, '%.@(%-?%d+)$'))
end
