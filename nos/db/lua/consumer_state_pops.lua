-- ConsumerStateTable pops (swss-common consumer_state_table_pops.lua semantics).
-- KEYS[1] <T>_KEY_SET  KEYS[2] table prefix "<T><sep>"  KEYS[3] <T>_DEL_SET
-- ARGV[1] batch size  ARGV[2] state prefix "_"
-- For each popped key: a pending delete clears the row first; the pending fields are copied into
-- the row and returned. A key with both a delete and fields pending yields a DEL then its fields
-- (DEL before SET); a key with a delete and no fields yields a DEL.
-- Returns one flat array: per entry the key, the number n of field and value strings that follow
-- (0: a DEL), then those n strings. Not nested tables as swss-common's script: Redis (6.2) turns each
-- nested Lua table into a reply block of its own and writes every block with a write(2) of its own,
-- ~3 per key, which cost more than the pop itself.
-- Bad data never fails the batch (Redis would abort the whole script on a WRONGTYPE): such a key is
-- returned as an entry with n = -1 followed by the Redis key and its type, and the pop goes on:
--   a key set or delete set that is not a set: nothing is popped from it;
--   a state hash "_<T><sep><key>" that is not a hash: its pending change is unreadable and dropped
--     (deleted, so that the producer's next write works), a pending delete still applies;
--   a row "<T><sep><key>" that is not a hash: replaced by the popped fields (the consumer owns it).
-- A popped key with neither pending fields nor a pending delete (written into the key set by hand)
-- is no operation: returned with n = -2. (swss-common's consumer takes it as a DEL.)
-- Written for speed (it runs once per key of every APPL_DB change): counters instead of #t,
-- prefixes concatenated once, one DEL for all state hashes; the type checks are once per batch.
redis.replicate_commands()
local ret, n = {}, 0
local states, ns = {}, 0
local CHUNK = 4000 -- field and value strings per HSET: unpack() stays within Lua's C stack
local function wrong_type(reply) -- a pcall's reply: true for WRONGTYPE; any other error is raised again
    if type(reply) ~= 'table' or not reply.err then return false end
    if string.find(reply.err, 'WRONGTYPE', 1, true) then return true end
    error(reply)
end
local function bad(key, name)
    ret[n + 1] = key
    ret[n + 2] = -1
    ret[n + 3] = name
    ret[n + 4] = redis.call('TYPE', name).ok
    n = n + 4
end
local key_set_type = redis.call('TYPE', KEYS[1]).ok
if key_set_type ~= 'set' then
    if key_set_type ~= 'none' then
        bad('', KEYS[1])
    end
    return ret
end
local keys = redis.call('SPOP', KEYS[1], ARGV[1])
local check_dels = false
local del_set_type = redis.call('TYPE', KEYS[3]).ok
if del_set_type == 'set' then
    check_dels = redis.call('SCARD', KEYS[3]) > 0
elseif del_set_type ~= 'none' then
    bad('', KEYS[3])
end
local tprefix = KEYS[2]
local sprefix = ARGV[2] .. KEYS[2]
local function mirror(key, fv, count)
    local row = tprefix .. key
    local first = math.min(CHUNK, count)
    if wrong_type(redis.pcall('HSET', row, unpack(fv, 1, first))) then
        bad(key, row)
        redis.call('DEL', row)
        redis.call('HSET', row, unpack(fv, 1, first))
    end
    for from = first + 1, count, CHUNK do
        redis.call('HSET', row, unpack(fv, from, math.min(from + CHUNK - 1, count)))
    end
end
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
    local fv = redis.pcall('HGETALL', state)
    local unreadable = wrong_type(fv)
    local count = 0
    if unreadable then
        bad(key, state)
        redis.call('DEL', state)
    else
        count = #fv
        if count > 0 then
            ns = ns + 1
            states[ns] = state
        end
    end
    if deleted == 1 and count > 0 then
        ret[n + 1] = key
        ret[n + 2] = 0
        n = n + 2
    end
    if count > 0 or deleted == 1 then
        ret[n + 1] = key
        ret[n + 2] = count
        n = n + 2
        for j = 1, count do
            ret[n + j] = fv[j]
        end
        n = n + count
        if count > 0 then
            mirror(key, fv, count)
        end
    elseif not unreadable then
        ret[n + 1] = key
        ret[n + 2] = -2
        n = n + 2
    end
end
if ns > 0 then
    redis.call('DEL', unpack(states))
end
return ret
