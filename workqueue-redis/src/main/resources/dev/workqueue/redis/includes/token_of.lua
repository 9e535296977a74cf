-- token_of: the token of the i-th item of a lease of several: the caller's token for the
-- first, token .. '.' .. i after it (LeaseBatch.token says the same).
local function token_of(token, i)
  if i == 1 then
    return token
  end
  return token .. '.' .. i
end
