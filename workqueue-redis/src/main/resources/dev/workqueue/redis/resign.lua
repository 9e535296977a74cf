-- ARGV[3] this handle's id. Gives up the reporter role at shutdown, if held, so that
-- another handle takes it at its next tick rather than when it lapses.
if redis.call('GET', KEYS[8]) == ARGV[3] then
  return redis.call('DEL', KEYS[8])
end
return 0
