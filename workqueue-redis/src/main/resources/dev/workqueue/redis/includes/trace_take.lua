-- trace_take: takes the trace record of an item being leased (read by the caller from the
-- field 't'..item of the per-item hash; see trace_add), for the get's reply: the record,
-- or false when there is none. An item that still waits for a delayed add keeps its
-- parent, which that add brings back with it. The caller has checked the hash's type
-- before its first write.
-- @include queue_keys
local function trace_take(item, record)
  if not record then
    return false
  end
  local parent = string.match(record, '^[^\n]*')
  if parent ~= '' and redis.call('ZSCORE', waitingKey, item) then
    redis.call('HSET', prioritiesKey, 't' .. item, parent)
  else
    redis.call('HDEL', prioritiesKey, 't' .. item)
  end
  return record
end
