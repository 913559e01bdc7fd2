-- ProducerStateTable set, one or many keys (swss-common producerstatetable.cpp semantics).
-- KEYS[1] channel  KEYS[2] <T>_KEY_SET  KEYS[3] state-hash prefix "_<T><sep>"
-- ARGV[1] payload ("G"), ARGV[2] number of keys, then per key: key, nfields, f1, v1, ...
-- Effects: SADD every key to the key set (one call); HSET each key's fields into its state hash
-- "_<T><sep><key>". One PUBLISH of the payload when any key was newly added to the key set.
local nkeys = tonumber(ARGV[2])
local keys = {}
local i = 3
for k = 1, nkeys do
    local n = tonumber(ARGV[i + 1])
    keys[k] = ARGV[i]
    if n > 0 then
        redis.call('HSET', KEYS[3] .. ARGV[i], unpack(ARGV, i + 2, i + 1 + n * 2))
    end
    i = i + 2 + n * 2
end
local added = 0
if nkeys > 0 then
    added = redis.call('SADD', KEYS[2], unpack(keys))
end
if added > 0 and KEYS[1] ~= '' then
    redis.call('PUBLISH', KEYS[1], ARGV[1])
end
return added
