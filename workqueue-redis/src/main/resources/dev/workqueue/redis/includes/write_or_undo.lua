-- write_or_undo: runs a command (a write, or a read) on a key the script has neither read
-- nor written before, after writes to other keys: if the key holds another type (the only
-- error such a command can meet), undo() puts back what the script changed, and the script
-- fails, leaving no half change. The happy path costs no TYPE check.
local function write_or_undo(undo, ...)
  local reply = redis.pcall(...)
  if type(reply) == 'table' and reply.err then
    undo()
    error(reply)
  end
  return reply
end
