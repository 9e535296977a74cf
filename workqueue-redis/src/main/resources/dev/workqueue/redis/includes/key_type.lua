-- key_type: the type the queue keeps at one of its keys (see queue_keys), for the checks
-- that find a user's own key under the queue's prefix. Comparisons rather than a table,
-- which a script would build anew on every call that checks.
-- @include queue_keys
local function key_type(key)
  if key == queueKey or key == wakeKey or key == deadKey then
    return 'list'
  elseif key == dirtyKey or key == leasesKey or key == prioritiesKey or key == grantsKey or key == givenUpKey or key == attemptsKey then
    return 'hash'
  elseif key == processingKey or key == waitingKey or key == readyKey or key == sinceKey or key == givenUpAtKey then
    return 'zset'
  elseif key == reporterKey or key == markKey or key == pausedKey then
    return 'string'
  end
end
