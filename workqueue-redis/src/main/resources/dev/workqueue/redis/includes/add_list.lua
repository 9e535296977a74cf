-- add_list: the list layout's add of the items ARGV[first_item] to ARGV[#ARGV] (see
-- list/add.lua), each with the trace context `context` ('' for none; see trace_add), whose
-- key is checked before any write when one comes. Returns how many were not duplicates.
-- A key of another type fails the script before it writes anything, or with its writes
-- undone (a lone item, see add_item). Every read of a group comes before its first write: the reads check the keys they read (Redis fails a read of a
-- key of another type), the one RPUSH of the items queued is the first write and checks
-- its key, and the dirty marks and trace records follow on keys checked already. A batch
-- holds at most 1000 items (QueueLayout.ADD_BATCH): one HMGET of the dirty hash, one of
-- the leases (of the new items), one RPUSH and one HSET take them all. A lone item
-- without a trace context takes add_item's way: HSETNX, HEXISTS, RPUSH, one command less.
-- @include queue_keys
-- @include now_us
-- @include move_due
-- @include queue_due_list
-- @include notify_if_was_empty
-- @include notify
-- @include check
-- @include trace_add
-- @include add_item
local function add_list(context, first_item)
  if context ~= '' then
    check(prioritiesKey)
  end
  local now = now_us()
  local _, queued_due = move_due(now, DUE_BATCH, queue_due_list, LIST_WRITES)
  notify_if_was_empty(queued_due)
  if context == '' and #ARGV == first_item then
    local added, length = add_item(ARGV[first_item], now)
    if length == 1 and queued_due == 0 then
      -- The list was empty: wake the consumers of every instance.
      notify('r')
    end
    return math.min(added, 1)
  end
  -- The reads, one HMGET per hash: which items are new (neither dirty nor earlier in the
  -- batch), which of those to queue (not being processed), and for each add whether it
  -- is the item's first effective one (trace_add).
  local items = {}
  for i = first_item, #ARGV do
    items[#items + 1] = ARGV[i]
  end
  local dirty = redis.call('HMGET', dirtyKey, unpack(items))
  local seen, marks, news, firsts, added = {}, {}, {}, {}, 0
  for i, item in ipairs(items) do
    local waits = context ~= '' and redis.call('ZSCORE', waitingKey, item)
    local marked = not seen[item] and not dirty[i]
    seen[item] = true
    firsts[first_item + i - 1] = marked and not waits
    if marked then
      added = added + 1
      marks[#marks + 1] = item
      marks[#marks + 1] = now
      news[#news + 1] = item
    end
  end
  local queued = {}
  if #news > 0 then
    local held = redis.call('HMGET', leasesKey, unpack(news))
    for i, item in ipairs(news) do
      if not held[i] then
        queued[#queued + 1] = item
      end
    end
  end
  -- The writes.
  if #queued > 0 and redis.call('RPUSH', queueKey, unpack(queued)) == #queued and queued_due == 0 then
    -- The list was empty: wake the consumers of every instance (see notify_if_was_empty).
    notify('r')
  end
  if #marks > 0 then
    redis.call('HSET', dirtyKey, unpack(marks))
  end
  for i = first_item, #ARGV do
    trace_add(ARGV[i], context, firsts[i])
  end
  return added
end
