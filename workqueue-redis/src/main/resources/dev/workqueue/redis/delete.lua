-- delete: gives an item's token bucket back full.
-- KEYS: 1 the bucket
-- ARGV: nothing
-- Reply: how many keys were deleted
return redis.call('DEL', KEYS[1])
