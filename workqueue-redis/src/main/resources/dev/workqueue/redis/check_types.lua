-- check_types: run once when a handle starts. Looks, without writing, for a key of the
-- queue that holds another type than the queue keeps there, then publishes a 'p' notice
-- (which the instances ignore) so that a user without the right to publish to the
-- queue's channel fails here, at start-up, rather than silently losing every notice.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: nothing more
-- Reply: {key, its type, the type the queue keeps there}, or {} when all fit
for i = 1, #TYPES do
  local actual = redis.call('TYPE', KEYS[i])['ok']
  if actual ~= 'none' and actual ~= TYPES[i] then
    return {KEYS[i], actual, TYPES[i]}
  end
end
redis.call('PUBLISH', ARGV[2], 'p')
return {}
