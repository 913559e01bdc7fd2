-- ProducerStateTable set, one or many keys (swss-common producerstatetable.cpp semantics).
-- KEYS[1] channel  KEYS[2] <T>_KEY_SET  KEYS[3] state-hash prefix "_<T><sep>"
-- ARGV[1] payload ("G"), ARGV[2] number of keys, then per key: key, nfields, f1, v1, ...
-- Effects: SADD every key to the key set (one call); HSET each key's fields into its state hash
-- "_<T><sep><key>". One PUBLISH of the payload when any key was newly added to the key set.
-- A key set or state hash of the wrong type (garbage written by hand) would abort the script and every
-- later write of the table: it is replaced (it holds nothing pending that could be read), and logged
-- in Redis' log. The state hash is checked only when its HSET fails (pcall): no cost otherwise.
-- The key set's SADD takes at most 512 keys (ProducerStateTable.MAX_KEYS_PER_SCRIPT).
local function wrong_type(reply) -- a pcall's reply: true for WRONGTYPE; any other error is raised again
    if type(reply) ~= 'table' or not reply.err then return false end
    if string.find(reply.err, 'WRONGTYPE', 1, true) then return true end
    error(reply)
end
local function replace_if_not(name, kind)
    local found = redis.call('TYPE', name).ok
    if found ~= kind and found ~= 'none' then
        redis.log(redis.LOG_WARNING, 'nos producer: ' .. name .. ' was a ' .. found .. ', replaced by a ' .. kind)
        redis.call('DEL', name)
    end
end
local CHUNK = 4000 -- field and value strings per HSET: unpack() stays within Lua's C stack (a row of
                   -- thousands of fields, garbage written by hand and forwarded, must not fail the script)
local nkeys = tonumber(ARGV[2])
local keys = {}
local i = 3
for k = 1, nkeys do
    local n = tonumber(ARGV[i + 1])
    keys[k] = ARGV[i]
    if n > 0 then
        local state = KEYS[3] .. ARGV[i]
        local last = i + 1 + n * 2
        local upto = math.min(last, i + 1 + CHUNK)
        if wrong_type(redis.pcall('HSET', state, unpack(ARGV, i + 2, upto))) then
            replace_if_not(state, 'hash')
            redis.call('HSET', state, unpack(ARGV, i + 2, upto))
        end
        for from = upto + 1, last, CHUNK do
            redis.call('HSET', state, unpack(ARGV, from, math.min(from + CHUNK - 1, last)))
        end
    end
    i = i + 2 + n * 2
end
local added = 0
if nkeys > 0 then
    replace_if_not(KEYS[2], 'set')
    added = redis.call('SADD', KEYS[2], unpack(keys))
end
if added > 0 and KEYS[1] ~= '' then
    redis.call('PUBLISH', KEYS[1], ARGV[1])
end
return added
