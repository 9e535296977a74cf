-- trace_take: takes the trace records of items being leased, for the reply: the record,
-- or false when the item has none. An item that still waits for a delayed add keeps its
-- parent, which that add brings back with it. The caller calls it only when the key
-- exists (see traced_lease), having checked its type before its own first write.
-- @include queue_keys
local function trace_take(items)
  local records = redis.call('HMGET', tracesKey, unpack(items))
  for i, item in ipairs(items) do
    local record = records[i]
    if record then
      local parent = string.match(record, '^[^\n]*')
      if parent ~= '' and redis.call('ZSCORE', waitingKey, item) then
        redis.call('HSET', tracesKey, item, parent)
      else
        redis.call('HDEL', tracesKey, item)
      end
    end
  end
  return records
end
