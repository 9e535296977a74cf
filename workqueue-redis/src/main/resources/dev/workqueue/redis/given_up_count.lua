-- given_up_count: how many given-up records the queue keeps within their retention, in
-- one read: O(log n). Either layout.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 the records' retention in µs
-- Output: the count
-- Invariants: writes nothing.
-- @include queue_keys
-- @include now_us

local retention_us = tonumber(ARGV[3])

return redis.call('ZCOUNT', givenUpAtKey, '(' .. string.format('%.0f', now_us() - retention_us), '+inf')
