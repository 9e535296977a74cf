-- check: fails, before any write, when one of the given keys holds another type than
-- the queue keeps there (a user's own key under the queue's prefix).
-- @include key_types
local function check(...)
  local types = key_types()
  for _, key in ipairs({...}) do
    local actual = redis.call('TYPE', key)['ok']
    if actual ~= 'none' and actual ~= types[key] then
      error({err = 'WRONGTYPE key ' .. key .. ' holds a ' .. actual .. ', not the ' .. types[key]
        .. ' the queue keeps there'})
    end
  end
end
