-- prelude: shared by every script of a queue, in front of each. It fixes the queue's keys
-- and first two arguments, in the order QueueKeys.all() passes them (a test checks that
-- the two agree):
-- KEYS: 1 queue, 2 dirty, 3 processing, 4 leases, 5 waiting, 6 dead, 7 reporter, 8 ready, 9 since, 10 priorities
-- ARGV: 1 now in µs, or '' for the server's clock; 2 the queue's pub/sub channel
-- Types: queue LIST of ready items, FIFO; dirty HASH item -> µs it was queued (client-go's
-- dirty set); processing ZSET item -> lease expiry in µs; leases HASH item -> token of
-- the live holder; waiting ZSET item -> ready time in µs; dead LIST of records; reporter
-- STRING, the id of the handle that reports the shared gauges.
-- A priority queue keeps its ready items in ready instead of queue (the rest is shared):
-- ready ZSET scored by -priority, whose members are a ready-order number (19 decimal
-- digits, from the '#' field of priorities) ':' item, so that the order is exactly
-- (priority descending, ready order ascending) for every priority and every number
-- HINCRBY gives; since ZSET of the same numbers and items, kept from when the item became
-- ready (a raise keeps it), scored by the µs it became ready; priorities HASH, '#' -> the
-- last ready-order number, 'r'..item -> its ready number then its since number (19 digits
-- each) while ready, 'w'..item -> its priority while waiting, 'h'..item -> the priority
-- it was handed out with while processing, 'd'..item -> the highest priority of the adds
-- while processing.
-- Every script runs with the shebang's defaults: Redis refuses it before its first command
-- when out of memory, so an out-of-memory error never leaves half a change behind. Each
-- script checks the types of the keys it writes before it writes, and its last command
-- (a notice) cannot fail, for the same reason.
local TYPES = {'list', 'hash', 'zset', 'hash', 'zset', 'list', 'string', 'zset', 'zset', 'hash'}

local function now_us()
  if ARGV[1] ~= '' then
    return tonumber(ARGV[1])
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- Fails, before any write, when one of the keys numbered in the arguments holds another
-- type than the queue keeps there (a user's own key under the queue's prefix).
local function check(...)
  for _, i in ipairs({...}) do
    local actual = redis.call('TYPE', KEYS[i])['ok']
    if actual ~= 'none' and actual ~= TYPES[i] then
      error({err = 'WRONGTYPE key ' .. KEYS[i] .. ' holds a ' .. actual .. ', not the ' .. TYPES[i]
        .. ' the queue keeps there'})
    end
  end
end

-- A notice to every instance; a channel the user may not publish to costs the notice
-- only (the instances' heartbeat makes up for it), never the script's writes.
local function notify(notice)
  redis.pcall('PUBLISH', ARGV[2], notice)
end

-- client-go's add: no-op if dirty; else dirty, and queued unless being processed.
-- Returns 0 (duplicate), 1 (marked dirty while processing) or 2 (queued).
local function add_item(item, now)
  if redis.call('HSETNX', KEYS[2], item, now) == 0 then
    return 0
  end
  if redis.call('HEXISTS', KEYS[4], item) == 1 then
    return 1
  end
  redis.call('RPUSH', KEYS[1], item)
  return 2
end

-- Pushes an item onto the ready list whose length was read before, and wakes the
-- consumers of every instance if it was empty (see notify_if_was_empty).
local function push_ready(item, length_before)
  redis.call('RPUSH', KEYS[1], item)
  if length_before == 0 then
    notify('r')
  end
end

-- Wakes the consumers of every instance if the ready list holds just what was pushed:
-- a consumer sleeps only after finding it empty, and one that finds more after its item
-- wakes the next one in its own instance.
local function notify_if_was_empty(pushed)
  if pushed > 0 and redis.call('LLEN', KEYS[1]) == pushed then
    notify('r')
  end
end

-- Ends the lease of an item if the token still holds it; false (a fenced-off former
-- holder) if not.
local function end_lease(item, token)
  if redis.call('HGET', KEYS[4], item) ~= token then
    return false
  end
  redis.call('HDEL', KEYS[4], item)
  redis.call('ZREM', KEYS[3], item)
  return true
end

-- Microseconds from now until the earliest score of a ZSET, or -1 when it is empty.
local function until_first(key, now)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] == nil then
    return -1
  end
  return math.max(0, tonumber(first[2]) - now)
end

-- The priority layout (KEYS 8 to 10). An item is ready when priorities has its 'r' field.

-- Lines an item up at the back of its priority, ready since the µs `since` with the
-- since number `since_order` (nil: a new one, now). The ready-order number is the first
-- write: when it cannot be incremented (past 2^63 - 1), nothing is written. HINCRBY's
-- reply is a double, exact below 2^53; from there the number is read as the string it is.
local function line_up(item, priority, since, since_order)
  local order = redis.call('HINCRBY', KEYS[10], '#', 1)
  if order < 2^53 then
    order = string.format('%019.0f', order)
  else
    order = redis.call('HGET', KEYS[10], '#')
    order = string.rep('0', 19 - #order) .. order
  end
  redis.call('ZADD', KEYS[8], 0 - priority, order .. ':' .. item)
  if not since_order then
    since_order = order
    redis.call('ZADD', KEYS[9], since, order .. ':' .. item)
  end
  redis.call('HSET', KEYS[10], 'r' .. item, order .. since_order)
end

-- client-go's add with priorities, for an item not being processed: a duplicate of a
-- ready item raises it if its priority is higher (it lines up at the back of its new
-- level, keeping when it became ready); any other item lines up with the higher of its
-- priority and that of its wait, if it waits (the wait stays, as client-go's). Returns 0
-- (duplicate) or 2 (queued).
local function add_ready(item, priority, now)
  local fields = redis.call('HMGET', KEYS[10], 'r' .. item, 'w' .. item)
  local numbers = fields[1]
  if numbers then
    local member = string.sub(numbers, 1, 19) .. ':' .. item
    if priority > 0 - tonumber(redis.call('ZSCORE', KEYS[8], member)) then
      line_up(item, priority, nil, string.sub(numbers, 20))
      redis.call('ZREM', KEYS[8], member)
    end
    return 0
  end
  priority = math.max(priority, tonumber(fields[2] or priority))
  line_up(item, priority, now, nil)
  redis.call('HSETNX', KEYS[2], item, now)
  return 2
end

-- Marks an item being processed dirty, with the highest priority of the adds. Returns 0
-- (already dirty) or 1.
local function add_dirty(item, priority, now)
  local field = 'd' .. item
  local before = redis.call('HGET', KEYS[10], field)
  local added = redis.call('HSETNX', KEYS[2], item, now)
  redis.call('HSET', KEYS[10], field, math.max(priority, tonumber(before or priority)))
  return added
end

-- The priorities of an item being processed: the highest of the adds while it was
-- processing (nil if none), and the one it was handed out with.
local function held_priorities(item)
  local p = redis.call('HMGET', KEYS[10], 'h' .. item, 'd' .. item)
  return tonumber(p[2]), tonumber(p[1] or 0)
end

-- Forgets the priorities of an item whose lease ended.
local function forget_held(item)
  redis.call('HDEL', KEYS[10], 'h' .. item, 'd' .. item)
end

-- Puts an item in the waiting set: the earlier ready time and the higher priority win.
-- Returns true if it became the first due.
local function wait_with(item, ready, priority)
  local field = 'w' .. item
  local before = redis.call('HGET', KEYS[10], field)
  redis.call('ZADD', KEYS[5], 'LT', ready, item)
  redis.call('HSET', KEYS[10], field, math.max(priority, tonumber(before or priority)))
  return redis.call('ZRANGE', KEYS[5], 0, 0)[1] == item
end

-- Wakes the consumers of every instance if the ready set holds just what was lined up:
-- a consumer sleeps only after finding it empty (see notify_if_was_empty).
local function notify_if_none_was_ready(lined_up)
  if lined_up > 0 and redis.call('ZCARD', KEYS[8]) == lined_up then
    notify('r')
  end
end

-- Runs a write on a key the script has neither read nor written before, after writes to
-- other keys: if the key holds another type (the only error such a write can meet), undo()
-- puts back what the script changed, and the script fails, leaving no half change. The
-- happy path costs no TYPE check.
local function write_or_undo(undo, ...)
  local reply = redis.pcall(...)
  if type(reply) == 'table' and reply.err then
    undo()
    error(reply)
  end
  return reply
end

-- Moves the waiting items due at `now` (at most `batch`) with queue_due(item, now), which
-- returns true if it queued the item; checks the keys it writes (checks) first, as a
-- move is rare. Returns how many moved and how many were queued.
local function move_due(now, batch, queue_due, checks)
  local due = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now, 'LIMIT', 0, batch)
  if #due == 0 then
    return 0, 0
  end
  check(unpack(checks))
  redis.call('ZREM', KEYS[5], unpack(due))
  local queued = 0
  for _, item in ipairs(due) do
    if queue_due(item, now) then
      queued = queued + 1
    end
  end
  return #due, queued
end

-- The list layout's move of a due item: client-go's add. LIST_WRITES: the keys a move
-- or the tick's hand-back writes without reading them first.
local LIST_WRITES = {1, 2, 4}
local function queue_due_list(item, now)
  return add_item(item, now) == 2
end

-- The priority layout's move of a due item: added with the priority of its wait (lined
-- up, raised, or dirty while processing). PRIORITY_WRITES: as LIST_WRITES.
local PRIORITY_WRITES = {2, 4, 8, 9, 10}
local function queue_due_priority(item, now)
  local field = 'w' .. item
  local priority = tonumber(redis.call('HGET', KEYS[10], field) or 0)
  redis.call('HDEL', KEYS[10], field)
  if redis.call('HEXISTS', KEYS[4], item) == 1 then
    add_dirty(item, priority, now)
    return false
  end
  return add_ready(item, priority, now) == 2
end

-- Most due items an add or a lease moves first; the tick moves the rest.
local DUE_BATCH = 100

-- The token of the i-th item of a lease of several: the caller's token for the first,
-- token .. '.' .. i after it (LeaseBatch.token says the same).
local function token_of(token, i)
  if i == 1 then
    return token
  end
  return token .. '.' .. i
end

-- The list layout's lease: moves what fell due, then leases up to `count` ready items,
-- the i-th to token_of(token, i). Returns {item, µs it was queued, ...}, with fewer than
-- `count` items when the list ran out. LPOP is the first write and checks its key; the
-- dirty hash is read before it is written; the other two writes undo the change if their
-- key holds another type.
local function lease_list(lease_us, token, count)
  local now = now_us()
  local _, queued_due = move_due(now, DUE_BATCH, queue_due_list, LIST_WRITES)
  local items = redis.call('LPOP', KEYS[1], count)
  if not items then
    return {}
  end
  if queued_due > 0 and #items == count then
    -- More of the items just moved are ready: wake the consumers of every instance.
    notify('r')
  end
  local queued_at = redis.call('HMGET', KEYS[2], unpack(items))
  redis.call('HDEL', KEYS[2], unpack(items))
  local expiry = now + tonumber(lease_us)
  local scored, held, reply, back = {}, {}, {}, {}
  for i, item in ipairs(items) do
    local at = tonumber(queued_at[i] or now)
    scored[2 * i - 1] = expiry
    scored[2 * i] = item
    held[2 * i - 1] = item
    held[2 * i] = token_of(token, i)
    reply[2 * i - 1] = item
    reply[2 * i] = math.max(0, now - at)
    back[#items + 1 - i] = item
  end
  local function put_back()
    redis.call('LPUSH', KEYS[1], unpack(back))
    for i, item in ipairs(items) do
      redis.call('HSET', KEYS[2], item, queued_at[i] or now)
    end
  end
  write_or_undo(put_back, 'ZADD', KEYS[3], unpack(scored))
  write_or_undo(function()
    redis.call('ZREM', KEYS[3], unpack(items))
    put_back()
  end, 'HSET', KEYS[4], unpack(held))
  return reply
end

-- The list layout's done: ends the processing of an item if the token still holds it.
-- Returns 0 (stale: the lease was lost, nothing changes: the fence), 1 (done) or 2 (done,
-- and queued again because it was added while being processed). Reads first; ZREM is
-- the first write and checks its key.
local function done_list(item, token)
  if redis.call('HGET', KEYS[4], item) ~= token then
    return 0
  end
  local dirty = redis.call('HEXISTS', KEYS[2], item) == 1
  local length = dirty and redis.call('LLEN', KEYS[1]) or 0
  redis.call('ZREM', KEYS[3], item)
  redis.call('HDEL', KEYS[4], item)
  if not dirty then
    return 1
  end
  push_ready(item, length)
  return 2
end

-- The priority layout's lease: moves what fell due, then leases up to `count` items, each
-- the item ready longest if it has been ready longer than the starvation timeout (µs, or
-- negative for none), else the first of the highest priority; the i-th to
-- token_of(token, i). Returns {item, µs it was queued, priority it is handed out with,
-- ...}, with fewer than `count` items when none is left. Every read of an item comes
-- before its first write; the keys written and not read are checked before the first.
local function lease_priority(lease_us, token, count, starvation)
  local now = now_us()
  move_due(now, DUE_BATCH, queue_due_priority, PRIORITY_WRITES)
  local reply = {}
  for i = 1, count do
    local member, since_member, priority, item, numbers
    if starvation >= 0 then
      local oldest = redis.call('ZRANGE', KEYS[9], 0, 0, 'WITHSCORES')
      if oldest[1] and now - tonumber(oldest[2]) > starvation then
        since_member = oldest[1]
        item = string.sub(since_member, 21)
        numbers = redis.call('HGET', KEYS[10], 'r' .. item)
        member = string.sub(numbers, 1, 19) .. ':' .. item
        priority = 0 - tonumber(redis.call('ZSCORE', KEYS[8], member))
      end
    end
    if not member then
      local first = redis.call('ZRANGE', KEYS[8], 0, 0, 'WITHSCORES')
      if not first[1] then
        break
      end
      member = first[1]
      priority = 0 - tonumber(first[2])
      item = string.sub(member, 21)
      numbers = redis.call('HGET', KEYS[10], 'r' .. item)
      since_member = string.sub(numbers, 20) .. ':' .. item
    end
    local queued_at = tonumber(redis.call('HGET', KEYS[2], item) or now)
    if i == 1 then
      -- Before the first write: a get that finds nothing checks nothing.
      if starvation >= 0 then
        check(3, 4)
      else
        check(3, 4, 9)
      end
    end
    redis.call('ZREM', KEYS[8], member)
    redis.call('ZREM', KEYS[9], since_member)
    redis.call('HDEL', KEYS[10], 'r' .. item)
    redis.call('HSET', KEYS[10], 'h' .. item, priority)
    redis.call('HDEL', KEYS[2], item)
    redis.call('ZADD', KEYS[3], now + tonumber(lease_us), item)
    redis.call('HSET', KEYS[4], item, token_of(token, i))
    reply[#reply + 1] = item
    reply[#reply + 1] = math.max(0, now - queued_at)
    reply[#reply + 1] = priority
  end
  if #reply > 0 and (#reply < 3 * count or redis.call('ZCARD', KEYS[8]) == 0) then
    -- No number is in use: the next item ready starts them again (and a drained queue
    -- leaves no key behind).
    redis.call('HDEL', KEYS[10], '#')
  end
  return reply
end

-- The priority layout's done (see done_list): an item added while it was processed lines
-- up again with the highest priority of those adds (and of a wait still pending). The
-- reads come first; the keys written and not read are checked before the first write.
local function done_priority(item, token)
  if redis.call('HGET', KEYS[4], item) ~= token then
    return 0
  end
  local dirty_priority = held_priorities(item)
  if dirty_priority then
    -- A wait still pending keeps the highest priority of all the item's adds.
    dirty_priority = math.max(dirty_priority, tonumber(redis.call('HGET', KEYS[10], 'w' .. item) or dirty_priority))
    check(3, 8, 9)
  else
    check(3)
  end
  forget_held(item)
  redis.call('HDEL', KEYS[4], item)
  redis.call('ZREM', KEYS[3], item)
  if not dirty_priority then
    return 1
  end
  line_up(item, dirty_priority, now_us(), nil)
  notify_if_none_was_ready(1)
  return 2
end

-- The tick of either layout (see tick.lua): moves due waiting items with queue_due(item,
-- now) and hands the items whose lease expired back with queue_expired(item, now), at
-- most ARGV[3] of each (each returns true if it queued the item), checking the keys they
-- write (checks) first; keeps the reporter role; wakes the consumers with
-- notify_queued(queued); counts the ready items with count_ready(). Every read comes
-- before the first write, so an idle tick checks no type by itself.
local function run_tick(queue_due, checks, queue_expired, notify_queued, count_ready)
  local now = now_us()
  local batch = tonumber(ARGV[3])
  local holder = redis.call('GET', KEYS[7])
  local moved, queued = 0, 0
  local next_due = until_first(KEYS[5], now)
  if next_due == 0 then
    moved, queued = move_due(now, batch, queue_due, checks)
    next_due = until_first(KEYS[5], now)
  end
  local reaped = 0
  local next_expiry = until_first(KEYS[3], now)
  if next_expiry == 0 then
    check(unpack(checks))
    local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, batch)
    for _, item in ipairs(expired) do
      redis.call('ZREM', KEYS[3], item)
      redis.call('HDEL', KEYS[4], item)
      if queue_expired(item, now) then
        queued = queued + 1
      end
    end
    reaped = #expired
    next_expiry = until_first(KEYS[3], now)
  end
  local ready = count_ready()
  local reporter = 0
  if not holder then
    redis.call('SET', KEYS[7], ARGV[4], 'PX', ARGV[5])
    reporter = 1
  elseif holder == ARGV[4] then
    redis.call('PEXPIRE', KEYS[7], ARGV[5])
    reporter = 1
  end
  notify_queued(queued)
  return {moved, reaped, next_due, next_expiry, ready, reporter}
end
