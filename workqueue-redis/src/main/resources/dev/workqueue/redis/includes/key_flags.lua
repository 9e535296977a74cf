-- key_flags: which of several keys exist, in one command: EXISTS counts a key each time
-- it is named, so naming the last key once, the one before it twice, the one before that
-- 4 times and so on answers a number whose bits, the first key's highest, are the flags.
-- Returns a boolean per key, in the order given.
local function key_flags(...)
  local keys, named = {...}, {}
  for i, key in ipairs(keys) do
    for _ = 1, 2 ^ (#keys - i) do
      named[#named + 1] = key
    end
  end
  local count = redis.call('EXISTS', unpack(named))
  local flags = {}
  for i = #keys, 1, -1 do
    flags[i] = count % 2 == 1
    count = math.floor(count / 2)
  end
  return unpack(flags, 1, #keys)
end
