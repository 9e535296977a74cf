-- done_list: the list layout's done of many leases, the (item, token) pairs of ARGV from
-- ARGV[from] on: ends each lease its token still holds, once if given twice; one its
-- token lost (another token, or none) changes nothing: the fence. An item added while it
-- was processed is queued again, at the tail, in the order given. Returns how many leases
-- it ended; run again, it finds them ended: 0, and nothing changes. Five commands however
-- many leases (HMGET leases, HMGET dirty, ZREM, HDEL, the grants' HDEL; the grant's time
-- goes with the lease), and one RPUSH when an item was dirty, whose reply (the list's
-- length) says whether the list was empty.
-- The reads come first. The first write checks its key (the RPUSH, else the ZREM); the
-- ZREM after an RPUSH takes the pushed items back if its key holds another type; the
-- leases were read. Only a lease under its get's own token (token_of's first) forgets the
-- get's grant, so one HDEL field per get, not per done (see grant); a grants key of
-- another type holds no grant to forget (pcall).
-- At most QueueLayout.DONE_BATCH (1000) leases a call: unpack takes some 8000 values.
-- @include queue_keys
-- @include held_leases
-- @include notify
-- @include write_or_undo
local function done_list(from)
  local held, grants = held_leases(from)
  if #held == 0 then
    return 0
  end
  local marks = redis.call('HMGET', dirtyKey, unpack(held))
  local dirty = {}
  for i, item in ipairs(held) do
    if marks[i] then
      dirty[#dirty + 1] = item
    end
  end
  if #dirty > 0 then
    local length = redis.call('RPUSH', queueKey, unpack(dirty))
    write_or_undo(function()
      redis.call('RPOP', queueKey, #dirty)
    end, 'ZREM', processingKey, unpack(held))
    if length == #dirty then
      -- The list was empty: wake the consumers of every instance.
      notify('r')
    end
  else
    redis.call('ZREM', processingKey, unpack(held))
  end
  redis.call('HDEL', leasesKey, unpack(held))
  if #grants > 0 then
    redis.pcall('HDEL', grantsKey, unpack(grants))
  end
  return #held
end
