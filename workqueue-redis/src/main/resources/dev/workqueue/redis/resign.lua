-- resign: gives up the reporter role at shutdown, if held, so that another handle takes
-- it at its next tick rather than when it lapses.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 this handle's id
-- Reply: 1 if the role was given up, else 0
if redis.call('GET', KEYS[7]) == ARGV[3] then
  return redis.call('DEL', KEYS[7])
end
return 0
