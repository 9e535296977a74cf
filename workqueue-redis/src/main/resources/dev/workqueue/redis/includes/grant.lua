-- grant: what makes a get safe to run twice. Lettuce sends a command again when the
-- connection dropped before its answer came, so a get may run twice with one token: the
-- second run answers the first's reply (granted(token)) instead of leasing more items
-- under the same token, which nobody would hold. The record lives from the get (for a
-- get that leased something) until its first lease ends (forget_grant(token) with any of
-- its items' tokens, includes/token_of.lua; by release, dead-letter or expiry, and by the
-- done of the get's first item: done_list forgets a grant only there, one HDEL field per
-- get): none can end before the get's answer reached its caller, save by the lease
-- running out.
-- Two ways to keep it. grant(token, reply) after granted(token): a HGET first, the first
-- touch of the key, which checks its type before the get writes anything. Or, cheaper,
-- grant_once(token, reply, undo) alone, once the get has leased: an HSETNX that writes the
-- record or finds the first run's, in which case undo() takes back what this run leased
-- and the first run's reply is answered (a key of another type: undo(), and the script
-- fails). A get that leased nothing then asks granted_late(token), as its first run may
-- have leased what is left (pcall: after writes, a key of another type holds no grant).
-- @include queue_keys
-- @include write_or_undo
local function unpack_grant(record)
  return type(record) == 'string' and cmsgpack.unpack(record)
end
local function granted(token)
  return unpack_grant(redis.call('HGET', grantsKey, token))
end
local function granted_late(token)
  return unpack_grant(redis.pcall('HGET', grantsKey, token))
end
local function grant(token, reply)
  if #reply > 0 then
    redis.call('HSET', grantsKey, token, cmsgpack.pack(reply))
  end
end
local function grant_once(token, reply, undo)
  if write_or_undo(undo, 'HSETNX', grantsKey, token, cmsgpack.pack(reply)) == 1 then
    return reply
  end
  undo()
  return granted(token)
end
-- token: any of a get's tokens, or a lease's value (includes/lease_value.lua).
local function forget_grant(token)
  redis.call('HDEL', grantsKey, string.match(token, '^[^.]*'))
end
