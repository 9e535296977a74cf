-- notify: a notice to every instance; a channel the user may not publish to costs the
-- notice only (the instances' heartbeat makes up for it), never the script's writes.
-- An 'r' notice (items became ready while a consumer may wait) also arms the queue's wake
-- list: one waiting consumer of all the instances pops it (BLPOP on standalone Redis,
-- where the instances ignore 'r'; on a Redis Cluster they wait for 'r'). wake_next keeps
-- the hand-off going after a lease: armed while items are left, so that the next waiting
-- consumer, in whichever instance, looks; removed once none is, so that a drained queue
-- keeps no wake-up and no key. Neither can fail the script (pcall: a key of another type
-- costs the wake-up only, as a lost notice does).
-- @include queue_keys
-- arm puts the list's one element there unless it holds one, in one command in the
-- usual case, so it looks first where the list is likely armed already: the hand-off
-- after a lease (wake_next) finds it so while no consumer waits (a drain), and reads its
-- length, pushing only when empty; an 'r' notice comes when no item was ready, which the
-- get that took the last one marked by removing the list, so it pushes first and takes
-- the element back if one was there.
local function arm(armed_likely)
  if armed_likely then
    if redis.pcall('LLEN', wakeKey) == 0 then
      redis.pcall('RPUSH', wakeKey, 1)
    end
    return
  end
  local length = redis.pcall('RPUSH', wakeKey, 1)
  if type(length) == 'number' and length > 1 then
    redis.pcall('RPOP', wakeKey)
  end
end
local function notify(notice)
  if notice == 'r' then
    arm(false)
  end
  redis.pcall('PUBLISH', channel, notice)
end
local function wake_next(left)
  if left > 0 then
    arm(true)
  else
    redis.pcall('DEL', wakeKey)
  end
end
