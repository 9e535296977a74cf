-- add_list: the list layout's add of the items ARGV[first_item] to ARGV[#ARGV] (see
-- list/add.lua), each with the trace context `context` ('' for none; see trace_add), whose
-- key is checked before any write when one comes. Returns how many were not duplicates.
-- @include queue_keys
-- @include now_us
-- @include move_due
-- @include queue_due_list
-- @include notify_if_was_empty
-- @include write_or_undo
-- @include notify
-- @include check
-- @include trace_add
local function add_list(context, first_item)
  if context ~= '' then
    check(prioritiesKey)
  end
  local now = now_us()
  local _, queued_due = move_due(now, DUE_BATCH, queue_due_list, LIST_WRITES)
  notify_if_was_empty(queued_due)
  local added = 0
  local woken = queued_due > 0
  for i = first_item, #ARGV do
    local item = ARGV[i]
    local processing = redis.call('HEXISTS', leasesKey, item) == 1
    local waits = context ~= '' and redis.call('ZSCORE', waitingKey, item)
    local marked = redis.call('HSETNX', dirtyKey, item, now) == 1
    trace_add(item, context, marked and not waits)
    if marked then
      added = added + 1
      if not processing then
        local length = write_or_undo(function()
          redis.call('HDEL', dirtyKey, item)
        end, 'RPUSH', queueKey, item)
        if length == 1 and not woken then
          -- The list was empty: wake the consumers of every instance (see
          -- notify_if_was_empty).
          woken = true
          notify('r')
        end
      end
    end
  end
  return added
end
