-- ConsumerStateTable pops (swss-common consumer_state_table_pops.lua semantics).
-- KEYS[1] <T>_KEY_SET  KEYS[2] table prefix "<T><sep>"  KEYS[3] <T>_DEL_SET
-- ARGV[1] batch size  ARGV[2] state prefix "_"
-- For each popped key: a pending delete clears the row first; the pending fields are copied into
-- the row and returned. A key with both a delete and fields pending yields a DEL then its fields
-- (DEL before SET); a key with no fields yields a DEL.
-- Returns one flat array: per entry the key, the number n of field and value strings that follow
-- (0: a DEL), then those n strings. Not nested tables as swss-common's script: Redis (6.2) turns each
-- nested Lua table into a reply block of its own and writes every block with a write(2) of its own,
-- ~3 per key, which cost more than the pop itself.
-- Written for speed (it runs once per key of every APPL_DB change): counters instead of #t,
-- prefixes concatenated once, one DEL for all state hashes.
redis.replicate_commands()
local ret, n = {}, 0
local states, ns = {}, 0
local keys = redis.call('SPOP', KEYS[1], ARGV[1])
local check_dels = redis.call('SCARD', KEYS[3]) > 0
local tprefix = KEYS[2]
local sprefix = ARGV[2] .. KEYS[2]
for i = 1, #keys do
    local key = keys[i]
    local deleted = 0
    if check_dels then
        deleted = redis.call('SREM', KEYS[3], key)
        if deleted == 1 then
            redis.call('DEL', tprefix .. key)
        end
    end
    local state = sprefix .. key
    local fv = redis.call('HGETALL', state)
    local count = #fv
    if deleted == 1 and count > 0 then
        ret[n + 1] = key
        ret[n + 2] = 0
        n = n + 2
    end
    ret[n + 1] = key
    ret[n + 2] = count
    n = n + 2
    for j = 1, count do
        ret[n + j] = fv[j]
    end
    n = n + count
    if count > 0 then
        redis.call('HSET', tprefix .. key, unpack(fv))
        ns = ns + 1
        states[ns] = state
    end
end
if ns > 0 then
    redis.call('DEL', unpack(states))
end
return ret
