-- ARGV[3..10] the expected type of each key. Returns the first key holding another type
-- and its type, or {} when all fit.
for i = 1, 8 do
  local actual = redis.call('TYPE', KEYS[i])['ok']
  if actual ~= 'none' and actual ~= ARGV[i + 2] then
    return {KEYS[i], actual, ARGV[i + 2]}
  end
end
return {}
