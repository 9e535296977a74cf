-- queue_keys: the queue's keys, bound to names in the order QueueKeys.all() passes them
-- (a test checks that the two agree), and the two arguments every queue script takes
-- first: ARGV[1] now in µs, or '' for the server's clock; ARGV[2] the queue's pub/sub
-- channel. Every queue script reaches it, directly or through the helpers it includes.
-- Types: queue LIST of ready items, FIFO; dirty HASH item -> µs it was queued (client-go's
-- dirty set); processing ZSET item -> lease expiry in µs; leases HASH item -> token of
-- the live holder and when its lease was granted, for the inspection's "held since" (one
-- value, see includes/lease_value.lua; the previous release's: the token alone); waiting ZSET item -> ready time in µs; givenUp HASH item -> its
-- given-up record (attempts ' ' holder '\n' reason, see includes/give_up.lua); reporter
-- STRING, the id of the handle that reports the shared gauges; wake LIST of at most a
-- few elements, armed when items became ready for a waiting consumer, which one waiting
-- consumer of all the instances pops (BLPOP; see includes/notify.lua); mark STRING, the
-- queue's format and the kind of clock of its handles ('2:S' or '2:C', see mark.lua), set
-- by its first handle and never expiring; givenUpAt ZSET item -> µs it was given up (the
-- records' index by time; both given-up keys expire once their newest record's retention
-- has passed); paused STRING, set while the queue is paused (pause.lua), which every
-- lease reads first; attempts HASH, the shared limiters' count of each item's failed
-- attempts (limiter/failures.lua's 'failures:attempts'), which the queue scripts only
-- read (the inspection's items and find); dead LIST, the previous release's dead letters
-- (JSON records), which move_dead_letters.lua moves into the given-up records once.
-- A priority queue keeps its ready items in ready instead of queue (the rest is shared):
-- ready ZSET scored by -priority, whose members are a ready-order number (19 decimal
-- digits, from the '#' field of priorities) ':' item, so that the order is exactly
-- (priority descending, ready order ascending) for every priority and every number
-- HINCRBY gives; since ZSET of the same numbers and items, kept from when the item became
-- ready (a raise keeps it), scored by the µs it became ready; priorities HASH, '#' -> the
-- last ready-order number, 'r'..item -> its ready number then its since number (19 digits
-- each) while ready, 'w'..item -> its priority while waiting, 'h'..item -> the priority
-- it was handed out with while processing, 'd'..item -> the highest priority of the adds
-- while processing.
-- Both layouts also keep in priorities, 't'..item -> the trace contexts of the item's adds
-- since its last hand-out, while it has any (see includes/trace_add.lua): a plain queue's
-- priorities hash holds nothing else, and exists only while an item has contexts.
-- grants HASH token -> the reply of the get that leased with it (cmsgpack), from the get
-- until the first of its leases ends (includes/grant.lua): a get run twice with one token
-- (Lettuce sends a command again when the connection dropped before its answer) answers
-- what it leased the first time.
-- A script that may grow memory (the adds) runs with the shebang's defaults: Redis refuses
-- it before its first command when out of memory, so an out-of-memory error never leaves
-- half a change behind. One that frees memory, or keeps it about even (get, done, release,
-- renew, the tick), carries allow-oom: Redis runs all of it even out of memory, so that
-- consumers drain the backlog (LuaScript lists them). Each script checks the types of the
-- keys it writes before it writes, and its last command (a notice) cannot fail, for the
-- same reason.
local queueKey = KEYS[1]
local dirtyKey = KEYS[2]
local processingKey = KEYS[3]
local leasesKey = KEYS[4]
local waitingKey = KEYS[5]
local givenUpKey = KEYS[6]
local reporterKey = KEYS[7]
local readyKey = KEYS[8]
local sinceKey = KEYS[9]
local prioritiesKey = KEYS[10]
local grantsKey = KEYS[11]
local wakeKey = KEYS[12]
local markKey = KEYS[13]
local givenUpAtKey = KEYS[14]
local pausedKey = KEYS[15]
local attemptsKey = KEYS[16]
local deadKey = KEYS[17]
local givenNow = ARGV[1]
local channel = ARGV[2]
