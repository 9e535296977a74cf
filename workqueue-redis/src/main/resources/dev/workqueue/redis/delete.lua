-- Deletes KEYS[1]: an item's bucket, given back full.
return redis.call('DEL', KEYS[1])
