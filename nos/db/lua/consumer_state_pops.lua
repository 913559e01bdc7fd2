-- ConsumerStateTable pops (swss-common consumer_state_table_pops.lua semantics).
-- KEYS[1] <T>_KEY_SET  KEYS[2] table prefix "<T><sep>"  KEYS[3] <T>_DEL_SET
-- ARGV[1] batch size  ARGV[2] state prefix "_"
-- For each popped key: a pending delete clears the row first; the pending fields are copied into
-- the row and returned. A key with both a delete and fields pending yields {key, {}} then
-- {key, fields} (DEL before SET); a key with no fields yields {key, {}} (a DEL).
redis.replicate_commands()
local ret = {}
local keys = redis.call('SPOP', KEYS[1], ARGV[1])
for i = 1, #keys do
    local key = keys[i]
    local deleted = redis.call('SREM', KEYS[3], key)
    if deleted == 1 then
        redis.call('DEL', KEYS[2] .. key)
    end
    local fv = redis.call('HGETALL', ARGV[2] .. KEYS[2] .. key)
    if deleted == 1 and #fv > 0 then
        table.insert(ret, {key, {}})
    end
    table.insert(ret, {key, fv})
    for j = 1, #fv, 2 do
        redis.call('HSET', KEYS[2] .. key, fv[j], fv[j + 1])
    end
    redis.call('DEL', ARGV[2] .. KEYS[2] .. key)
end
return ret
