-- mark: run once when a handle starts, after check_types. Reads the queue's mark, its
-- format and the kind of clock of its handles ('2:S', see ClockKind), and sets it when the
-- queue has none, so that the kind is kept with the queue's data, not only with its live
-- handles: of two handles of different kinds that start at once, the first script run
-- sets the mark and the other reads it. A queue without a mark is new, or was written by
-- the previous release, which kept no mark: its keys are read as they are, but while a
-- handle of it holds the reporter role (its id starts with its kind, or, before kinds,
-- with a digit or lower-case letter) the mark is set only if that kind is this handle's
-- and is the server's clock (the previous release sent a given clock's readings as they
-- are, this one anchors them on the server's time: the two disagree). Either layout.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 this release's format ('2'), 4 this handle's kind ('S'
--   or 'C')
-- Output: {the mark, ''} once the queue has one; {'', the reporter's id} when the queue
-- has none and a handle of another kind, or of the previous release on a given clock,
-- holds the reporter role (nothing written)
-- Invariants: sets the mark only where there is none; never expires or deletes it.
-- @include queue_keys

local format = ARGV[3]
local kind = ARGV[4]

local mark = redis.call('GET', markKey)
if not mark then
  local reporter = redis.call('GET', reporterKey)
  if reporter and (kind ~= 'S' or string.sub(reporter, 1, 1) ~= kind) then
    return {'', reporter}
  end
  mark = format .. ':' .. kind
  redis.call('SET', markKey, mark)
end
return {mark, ''}
