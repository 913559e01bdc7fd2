-- ConsumerTable pops: the oldest <batch> operations of an ordered queue, FIFO, removed atomically
-- (swss-common consumer_table_pops.lua, without the ASIC_STATE mirroring: syncd in synchronous
-- mode writes the object hashes itself).
-- KEYS[1] <T>_KEY_VALUE_OP_QUEUE  ARGV[1] batch size
-- KEYS[2] (optional) an in-flight list: what is popped is also RPUSHed there (oldest first), so that a
--   consumer killed before it finished a batch finds it again; the consumer deletes the list when done.
-- Returns flat triples key, op (with its S/D prefix), JSON value, oldest first.
-- A producer pushes whole triples (key, value, op) in one script; an element that does not start such a
-- triple (its op has no S/D prefix or its value is not a JSON list: something else LPUSHed on the queue)
-- is popped alone and returned as the triple '', '', element, so that the queue realigns and the
-- consumer can report it.
local want = tonumber(ARGV[1])
local out = {}
local got = 0
while got < want do
    local key = redis.call('LINDEX', KEYS[1], -1)
    if not key then
        break
    end
    local value = redis.call('LINDEX', KEYS[1], -2)
    local op = redis.call('LINDEX', KEYS[1], -3)
    local head = op and string.sub(op, 1, 1)
    if value and (head == 'S' or head == 'D') and string.sub(value, 1, 1) == '[' then
        redis.call('LTRIM', KEYS[1], 0, -4)
        out[#out + 1] = key
        out[#out + 1] = op
        out[#out + 1] = value
    else
        redis.call('LTRIM', KEYS[1], 0, -2)
        out[#out + 1] = ''
        out[#out + 1] = ''
        out[#out + 1] = key
    end
    got = got + 1
end
if KEYS[2] and #out > 0 then
    for i = 1, #out, 300 do
        redis.call('RPUSH', KEYS[2], unpack(out, i, math.min(i + 299, #out)))
    end
end
return out
