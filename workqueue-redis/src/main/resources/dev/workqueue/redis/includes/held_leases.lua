-- held_leases: the leases of a done's (item, token) pairs, from ARGV[from] on, that their
-- token still holds (one HMGET of the leases), each item once if given twice: returns the
-- items held, in the order given, and the tokens among theirs under which a get wrote its
-- grant (token_of's first: no dot), whose grants their done forgets.
-- @include queue_keys
-- @include lease_value
local function held_leases(from)
  local items, tokens = {}, {}
  for i = from, #ARGV, 2 do
    items[#items + 1] = ARGV[i]
    tokens[#tokens + 1] = ARGV[i + 1]
  end
  local holders = redis.call('HMGET', leasesKey, unpack(items))
  local held, grants, seen = {}, {}, {}
  for i, item in ipairs(items) do
    if lease_token(holders[i]) == tokens[i] and not seen[item] then
      seen[item] = true
      held[#held + 1] = item
      if not string.find(tokens[i], '.', 1, true) then
        grants[#grants + 1] = tokens[i]
      end
    end
  end
  return held, grants
end
