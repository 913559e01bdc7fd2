-- ProducerStateTable del, one or many keys (swss-common producerstatetable.cpp semantics).
-- KEYS[1] channel  KEYS[2] <T>_KEY_SET  KEYS[3] <T>_DEL_SET  KEYS[4] state-hash prefix "_<T><sep>"
-- ARGV[1] payload ("G"), ARGV[2..] keys.
-- Effects per key: SADD key set; SADD del set; DEL the pending state hash (pending fields dropped).
-- A key set or delete set of the wrong type (garbage written by hand) is replaced, as in the set script.
for _, name in ipairs({KEYS[2], KEYS[3]}) do
    local found = redis.call('TYPE', name).ok
    if found ~= 'set' and found ~= 'none' then
        redis.log(redis.LOG_WARNING, 'nos producer: ' .. name .. ' was a ' .. found .. ', replaced by a set')
        redis.call('DEL', name)
    end
end
local added = 0
for i = 2, #ARGV do
    local key = ARGV[i]
    added = added + redis.call('SADD', KEYS[2], key)
    redis.call('SADD', KEYS[3], key)
    redis.call('DEL', KEYS[4] .. key)
end
if added > 0 and KEYS[1] ~= '' then
    redis.call('PUBLISH', KEYS[1], ARGV[1])
end
return added
