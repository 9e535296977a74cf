-- items: one page of the items in one state, for an operator's look at the queue: the
-- ready ones in hand-out order (the list's order; the priority layout's by priority, then
-- ready order, without the starvation timeout's turns), the processing ones by lease
-- expiry (their lease's last start, oldest first), the waiting ones by due time, the
-- given-up ones within their retention, newest first. Either layout. Reads through the
-- state's index with the page's bounds: O(log n + limit), never the whole queue.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 the state ('ready', 'processing', 'waiting' or
--   'given-up'), 4 offset, 5 limit, 6 the layout ('list' or 'priority'), 7 the lease in
--   µs (a processing item's lease was granted at the time its lease keeps, or, for a
--   lease granted by the previous release, which keeps none, its expiry minus this), 8
--   the given-up records' retention in µs
-- Output: 7 values per item (includes/item_views.lua), at most ARGV[5] items
-- Invariants: writes nothing.
-- @include queue_keys
-- @include now_us
-- @include item_views
-- @include lease_value

local state, offset, limit, layout = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local lease_us, retention_us = tonumber(ARGV[7]), tonumber(ARGV[8])

local last = offset + limit - 1
local reply = {}
local items, scores = {}, {}
local function scored(flat)
  for i = 1, #flat, 2 do
    items[#items + 1] = flat[i]
    scores[#scores + 1] = tonumber(flat[i + 1])
  end
end
local function field(prefix)
  local fields = {}
  for i, item in ipairs(items) do
    fields[i] = prefix .. item
  end
  return fields
end

if state == 'ready' and layout == 'list' then
  items = redis.call('LRANGE', queueKey, offset, last)
elseif state == 'ready' then
  scored(redis.call('ZRANGE', readyKey, offset, last, 'WITHSCORES'))
  for i, member in ipairs(items) do
    items[i] = string.sub(member, 21)
  end
elseif state == 'processing' then
  scored(redis.call('ZRANGE', processingKey, offset, last, 'WITHSCORES'))
elseif state == 'waiting' then
  scored(redis.call('ZRANGE', waitingKey, offset, last, 'WITHSCORES'))
else
  local since = string.format('(%.0f', now_us() - retention_us)
  scored(redis.call('ZREVRANGEBYSCORE', givenUpAtKey, '+inf', since, 'WITHSCORES', 'LIMIT', offset, limit))
end
if #items == 0 then
  return reply
end

if state == 'given-up' then
  local records = redis.call('HMGET', givenUpKey, unpack(items))
  for i, item in ipairs(items) do
    local attempts, holder, reason = given_up_record(records[i])
    view(reply, item, 0, scores[i], holder, -1, attempts, reason)
  end
  return reply
end
local counts = redis.call('HMGET', attemptsKey, unpack(items))
if state == 'ready' then
  local queued = redis.call('HMGET', dirtyKey, unpack(items))
  for i, item in ipairs(items) do
    view(reply, item, scores[i] and 0 - scores[i], queued[i] or now_us(), nil, -1, attempts_of(counts[i]))
  end
elseif state == 'processing' then
  local tokens = redis.call('HMGET', leasesKey, unpack(items))
  local priorities = redis.call('HMGET', prioritiesKey, unpack(field('h')))
  local now = now_us()
  for i, item in ipairs(items) do
    view(reply, item, priorities[i], lease_granted_at(tokens[i]) or (scores[i] - lease_us), holder_of(tokens[i]), math.max(0, scores[i] - now),
      attempts_of(counts[i]))
  end
else
  local priorities = redis.call('HMGET', prioritiesKey, unpack(field('w')))
  for i, item in ipairs(items) do
    view(reply, item, priorities[i], scores[i], nil, -1, attempts_of(counts[i]))
  end
end
return reply
