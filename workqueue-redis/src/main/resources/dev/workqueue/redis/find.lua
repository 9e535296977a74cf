-- find: one item in every state it is in, for an operator's look at the queue:
-- processing, then ready (a plain queue's item is ready when it is queued and not held:
-- one added again while it is processed waits for its done, not in the list), waiting,
-- given up (within the records' retention). Either layout. O(1) lookups: a field or a
-- score per state, never a walk of the list.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 the layout ('list' or 'priority'), 5 the lease
--   in µs (see items.lua), 6 the given-up records' retention in µs
-- Output: 7 values per state (includes/item_views.lua), in that order, each preceded by
-- its state's name
-- Invariants: writes nothing.
-- @include queue_keys
-- @include now_us
-- @include item_views
-- @include lease_value

local item, layout, lease_us, retention_us = ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])

local now = now_us()
local reply = {}
local attempts = attempts_of(redis.call('HGET', attemptsKey, item))
local token = redis.call('HGET', leasesKey, item)
local expiry = redis.call('ZSCORE', processingKey, item)
if expiry then
  reply[#reply + 1] = 'processing'
  -- A lease the previous release granted keeps no time: when it last started.
  local granted_at = lease_granted_at(token) or (tonumber(expiry) - lease_us)
  view(reply, item, redis.call('HGET', prioritiesKey, 'h' .. item), tonumber(granted_at), holder_of(token),
    math.max(0, tonumber(expiry) - now), attempts)
end
local queued = redis.call('HGET', dirtyKey, item)
if layout == 'priority' then
  local numbers = redis.call('HGET', prioritiesKey, 'r' .. item)
  if numbers then
    reply[#reply + 1] = 'ready'
    local score = tonumber(redis.call('ZSCORE', readyKey, string.sub(numbers, 1, 19) .. ':' .. item))
    view(reply, item, score and 0 - score, queued or now, nil, -1, attempts)
  end
elseif queued and not token then
  reply[#reply + 1] = 'ready'
  view(reply, item, 0, queued, nil, -1, attempts)
end
local due = redis.call('ZSCORE', waitingKey, item)
if due then
  reply[#reply + 1] = 'waiting'
  view(reply, item, redis.call('HGET', prioritiesKey, 'w' .. item), due, nil, -1, attempts)
end
local given_up = redis.call('ZSCORE', givenUpAtKey, item)
if given_up and tonumber(given_up) > now - retention_us then
  local count, holder, reason = given_up_record(redis.call('HGET', givenUpKey, item))
  reply[#reply + 1] = 'given-up'
  view(reply, item, 0, given_up, holder, -1, count, reason)
end
return reply
