-- dead_letter: moves a leased item that the codec cannot decode out of the queue, into
-- the dead-letter list, with a record saying why.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item, 4 token, 5 record
-- Reply: 1 if moved, 0 if the token no longer held the item
check(2, 3, 4, 6, 10)
if not end_lease(ARGV[3], ARGV[4]) then
  return 0
end
redis.call('HDEL', KEYS[2], ARGV[3])
-- A priority queue's: the priorities it was handed out and added with.
redis.call('HDEL', KEYS[10], 'h' .. ARGV[3], 'd' .. ARGV[3])
redis.call('RPUSH', KEYS[6], ARGV[5])
return 1
