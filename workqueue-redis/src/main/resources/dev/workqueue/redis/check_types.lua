-- check_types: run once when a handle starts. Looks, without writing, for a key of the
-- queue that holds another type than the queue keeps there, then publishes a 'p' notice
-- (which the instances ignore) so that a user without the right to publish to the
-- queue's channel fails here, at start-up, rather than silently losing every notice.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 the layout of the ready items, 'list' or 'priority' (absent: not checked)
-- Reply: {key, its type, the type the queue keeps there}, or {} when all fit, or
-- {key, its type, 'none', the other layout} when the key belongs to a queue of the same
-- name with the other layout (a plain queue's ready list, a priority queue's ready set)
for i = 1, #TYPES do
  local actual = redis.call('TYPE', KEYS[i])['ok']
  if actual ~= 'none' and actual ~= TYPES[i] then
    return {KEYS[i], actual, TYPES[i]}
  end
end
local other = {list = {8, 'priority'}, priority = {1, 'list'}}
local foreign = ARGV[3] and other[ARGV[3]]
if foreign and redis.call('EXISTS', KEYS[foreign[1]]) == 1 then
  return {KEYS[foreign[1]], TYPES[foreign[1]], 'none', foreign[2]}
end
redis.call('PUBLISH', ARGV[2], 'p')
return {}
