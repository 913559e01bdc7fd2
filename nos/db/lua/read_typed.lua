-- Read keys with their type, for a copy that can be written back exactly (the CONFIG_DB journal).
-- ARGV: the keys to read; none: every key of the DB (CONFIG_DB is small: thousands of keys).
-- Returns a flat array: key, type, value, ...  with value a flat field/value array for a hash, the
-- string for a string, the DUMP payload for any other type, and '' for a key that does not exist
-- (type 'none').
local names = ARGV
if #names == 0 then
    names = redis.call('KEYS', '*')
end
local out = {}
for _, key in ipairs(names) do
    local kind = redis.call('TYPE', key)['ok']
    local value = ''
    if kind == 'hash' then
        value = redis.call('HGETALL', key)
    elseif kind == 'string' then
        value = redis.call('GET', key)
    elseif kind ~= 'none' then
        value = redis.call('DUMP', key)
    end
    out[#out + 1] = key
    out[#out + 1] = kind
    out[#out + 1] = value
end
return out
