-- check: fails, before any write, when one of the given keys holds another type than
-- the queue keeps there (a user's own key under the queue's prefix).
-- @include key_type
local function check(...)
  for _, key in ipairs({...}) do
    local actual = redis.call('TYPE', key)['ok']
    if actual ~= 'none' and actual ~= key_type(key) then
      error({err = 'WRONGTYPE key ' .. key .. ' holds a ' .. actual .. ', not the ' .. key_type(key)
        .. ' the queue keeps there'})
    end
  end
end
