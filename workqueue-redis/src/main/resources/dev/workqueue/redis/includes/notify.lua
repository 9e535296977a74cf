-- notify: a notice to every instance; a channel the user may not publish to costs the
-- notice only (the instances' heartbeat makes up for it), never the script's writes.
-- @include queue_keys
local function notify(notice)
  redis.pcall('PUBLISH', channel, notice)
end
