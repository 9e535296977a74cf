-- queue_due_list: the list layout's move of a due item (see move_due): client-go's add.
-- LIST_WRITES: the keys a move or the tick's hand-back writes without reading them
-- first.
-- @include queue_keys
-- @include add_item
local LIST_WRITES = {queueKey, dirtyKey, leasesKey}
local function queue_due_list(item, now)
  return add_item(item, now) == 2
end
