-- item_views: how the inspection's scripts (items, find) reply: 7 values per item: the
-- item, its priority, a µs on the scripts' clock (when it was queued, its lease's last
-- start, its due time, when it was given up), its holder or '', its lease left in µs or
-- -1, its failed attempts or -1, the reason it was given up or ''. A holder is the id
-- of the handle whose token holds the lease (the token up to its ':', see LeaseTokens);
-- the attempts are the shared count of max-retries (attemptsKey), 0 where it has none.
-- Never a nil in the reply, which would end it there (Redis cuts a reply at its first
-- nil) and shift every later item's values: a value a malformed record or field does not
-- give reads as its default (priority 0, time 0, attempts 0), attempts below -1 as -1.
local function view(reply, item, priority, at, holder, left_us, attempts, reason)
  local n = #reply
  reply[n + 1] = item
  reply[n + 2] = tonumber(priority) or 0
  reply[n + 3] = tonumber(at) or 0
  reply[n + 4] = holder or ''
  reply[n + 5] = left_us
  reply[n + 6] = math.max(-1, tonumber(attempts) or 0)
  reply[n + 7] = reason or ''
end
local function holder_of(token)
  return token and string.match(token, '^[^:]*') or ''
end
local function attempts_of(count)
  return tonumber(string.match(count or '0', '^-?%d+')) or 0
end
-- A given-up record's attempts, holder and reason (see includes/give_up.lua); one that
-- has not that shape reads as 0 attempts, no holder, and its whole text as the reason.
local function given_up_record(record)
  local attempts, holder, reason = string.match(record or '', '^(-?%d+) (%S*)\n(.*)$')
  if not attempts then
    return 0, '', record or ''
  end
  return tonumber(attempts), holder, reason
end
