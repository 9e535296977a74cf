-- key_types: the type the queue keeps at each of its keys (see queue_keys), for the
-- checks that find a user's own key under the queue's prefix. A function, so that only a
-- script that checks builds the table (most calls check nothing).
-- @include queue_keys
local function key_types()
  return {[queueKey] = 'list', [dirtyKey] = 'hash', [processingKey] = 'zset', [leasesKey] = 'hash',
    [waitingKey] = 'zset', [deadKey] = 'list', [reporterKey] = 'string', [readyKey] = 'zset', [sinceKey] = 'zset',
    [prioritiesKey] = 'hash'}
end
