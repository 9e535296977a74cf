-- trace_add: stores the trace context of one add of an item (nothing when `context` is
-- empty: an add without a current span, or a queue without a tracer) in the field
-- 't'..item of the per-item hash (queue_keys: priorities). `first`: whether the add is the
-- item's first effective one since it was last handed out (it was neither dirty nor
-- waiting before it), whose context is the parent; a later one is a link, kept while the
-- item has fewer than MAX_TRACE_LINKS. The record is the parent ('' when the first
-- effective add had none), then '\n' and each link: bounded, as the Java side sends
-- contexts of at most 2048 characters without a line break. The caller checks the hash's
-- type before its own first write.
-- @include queue_keys
local MAX_TRACE_LINKS = 8
local function trace_add(item, context, first)
  if context == '' then
    return
  end
  local field = 't' .. item
  local record = redis.call('HGET', prioritiesKey, field)
  if not record then
    redis.call('HSET', prioritiesKey, field, first and context or ('\n' .. context))
    return
  end
  local _, links = string.gsub(record, '\n', '')
  if links < MAX_TRACE_LINKS then
    redis.call('HSET', prioritiesKey, field, record .. '\n' .. context)
  end
end
