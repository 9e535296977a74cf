-- delete: gives an item's token bucket back full.
-- Input: KEYS 1 the bucket; ARGV nothing
-- Output: how many keys were deleted
-- Invariants: safe to run twice (the second deletes nothing).
local bucketKey = KEYS[1]

return redis.call('DEL', bucketKey)
