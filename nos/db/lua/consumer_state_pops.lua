-- ConsumerStateTable pops (swss-common consumer_state_table_pops.lua semantics).
-- KEYS[1] <T>_KEY_SET  KEYS[2] table prefix "<T><sep>"  KEYS[3] <T>_DEL_SET
-- ARGV[1] batch size  ARGV[2] state prefix "_"
-- For each popped key: a pending delete clears the row first; the pending fields are copied into
-- the row and returned. A key with both a delete and fields pending yields {key, {}} then
-- {key, fields} (DEL before SET); a key with no fields yields {key, {}} (a DEL).
redis.replicate_commands()
local ret = {}
local keys = redis.call('SPOP', KEYS[1], ARGV[1])
local check_dels = redis.call('SCARD', KEYS[3]) > 0
local states = {}
for i = 1, #keys do
    local key = keys[i]
    local row = KEYS[2] .. key
    local deleted = 0
    if check_dels then
        deleted = redis.call('SREM', KEYS[3], key)
        if deleted == 1 then
            redis.call('DEL', row)
        end
    end
    local state = ARGV[2] .. row
    local fv = redis.call('HGETALL', state)
    if deleted == 1 and #fv > 0 then
        ret[#ret + 1] = {key, {}}
    end
    ret[#ret + 1] = {key, fv}
    if #fv > 0 then
        redis.call('HSET', row, unpack(fv))
        states[#states + 1] = state
    end
end
if #states > 0 then
    redis.call('DEL', unpack(states))
end
return ret
