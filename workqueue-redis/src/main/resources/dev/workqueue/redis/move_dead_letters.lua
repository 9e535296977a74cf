-- move_dead_letters: run once when a handle starts, after mark. Moves the dead letters of
-- the previous release (deadKey, a LIST of JSON records {"payload", "reason", "server"}
-- of the payloads it could not decode, newest last) into the given-up records, then
-- deletes the list: each becomes its payload's given-up record with its reason, 0
-- attempts, given up now, by its server (spaces made '_'), or by 'previous-release' when
-- it names none. Bounded as every given-up record is (includes/give_up.lua): only the
-- newest `keep` are read, the older ones go with the list (with a bound of 0 records, all
-- of them), and a record that is not such JSON too. Either layout. Run again, or by
-- another handle at the same time, it finds no list and writes nothing.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 most records kept, 4 their retention in µs
-- Output: how many records were moved
-- Invariants: every key it writes is checked before the first write; the list is gone
-- after it.
-- @include queue_keys
-- @include now_us
-- @include check
-- @include give_up

local keep, retention_us = tonumber(ARGV[3]), tonumber(ARGV[4])

if redis.call('EXISTS', deadKey) == 0 then
  return 0
end
check(deadKey, givenUpKey, givenUpAtKey)
local moved = 0
if keep > 0 then
  local now = now_us()
  for _, json in ipairs(redis.call('LRANGE', deadKey, 0 - keep, -1)) do
    local decoded, record = pcall(cjson.decode, json)
    if decoded and type(record) == 'table' and type(record.payload) == 'string' then
      local reason = (type(record.reason) == 'string') and record.reason or ''
      local holder = (type(record.server) == 'string') and string.gsub(record.server, '%s', '_') or ''
      keep_given_up_record(record.payload, 0, reason, (holder ~= '') and holder or 'previous-release', now)
      moved = moved + 1
    end
  end
  if moved > 0 then
    bound_given_up(keep, retention_us, now)
  end
end
redis.call('UNLINK', deadKey)
return moved
