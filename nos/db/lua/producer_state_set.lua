-- ProducerStateTable set, one or many keys (swss-common producerstatetable.cpp semantics).
-- KEYS[1] channel  KEYS[2] <T>_KEY_SET  KEYS[3] state-hash prefix "_<T><sep>"
-- ARGV[1] payload ("G"), then per key: key, nfields, f1, v1, ...
-- Effects per key: SADD key set; HSET every field into the state hash "_<T><sep><key>".
-- One PUBLISH of the payload when any key was newly added to the key set.
local added = 0
local i = 2
while i <= #ARGV do
    local key = ARGV[i]
    local n = tonumber(ARGV[i + 1])
    added = added + redis.call('SADD', KEYS[2], key)
    for j = 0, n - 1 do
        redis.call('HSET', KEYS[3] .. key, ARGV[i + 2 + j * 2], ARGV[i + 3 + j * 2])
    end
    i = i + 2 + n * 2
end
if added > 0 and KEYS[1] ~= '' then
    redis.call('PUBLISH', KEYS[1], ARGV[1])
end
return added
