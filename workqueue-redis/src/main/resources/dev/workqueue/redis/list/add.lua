-- add: client-go's add of each item, across every instance: a duplicate of a queued item
-- changes nothing; an item being processed is marked dirty; any other is queued, behind
-- the waiting items that fell due before it (moved first).
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3.. the items
-- Output: how many of them were not duplicates (marked dirty or queued)
-- Invariants: add_list's: a key of another type fails the script before it writes
-- anything, or with its writes undone.
-- @include add_list

-- The items are ARGV[3] to ARGV[#ARGV], read one by one (as many as the caller sends).
local FIRST_ITEM = 3

return add_list('', FIRST_ITEM)
