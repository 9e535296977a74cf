-- grant: what makes a get safe to run twice. Lettuce sends a command again when the
-- connection dropped before its answer came, so a get may run twice with one token: the
-- second run answers the first's reply (granted(token)) instead of leasing more items
-- under the same token, which nobody would hold. The record lives from the get
-- (grant(token, reply), for a get that leased something) until the first of its leases
-- ends (forget_grant(token) with any of its items' tokens, includes/token_of.lua; by
-- done, release, dead-letter or expiry): none can end before the get's answer reached its
-- caller, save by the lease running out. HGET is the first touch of the key, and checks
-- its type before the get writes anything.
-- @include queue_keys
local function granted(token)
  local reply = redis.call('HGET', grantsKey, token)
  return reply and cmsgpack.unpack(reply)
end
local function grant(token, reply)
  if #reply > 0 then
    redis.call('HSET', grantsKey, token, cmsgpack.pack(reply))
  end
end
local function forget_grant(token)
  redis.call('HDEL', grantsKey, string.match(token, '^[^.]*'))
end
