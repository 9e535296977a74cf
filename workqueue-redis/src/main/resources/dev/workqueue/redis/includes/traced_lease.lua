-- traced_lease: whether any item has trace contexts, read (and the key's type checked)
-- before a lease writes anything: a queue that stores none costs one EXISTS per lease.
-- @include queue_keys
-- @include check
local function traced_lease()
  if redis.call('EXISTS', tracesKey) == 0 then
    return false
  end
  check(tracesKey)
  return true
end
