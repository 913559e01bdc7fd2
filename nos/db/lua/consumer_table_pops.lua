-- ConsumerTable pops: the oldest <batch> operations of an ordered queue, FIFO, removed atomically
-- (swss-common consumer_table_pops.lua, without the ASIC_STATE mirroring: syncd in synchronous
-- mode writes the object hashes itself).
-- KEYS[1] <T>_KEY_VALUE_OP_QUEUE  ARGV[1] batch size
-- Returns flat triples key, op (with its S/D prefix), JSON value, oldest first.
local n = tonumber(ARGV[1]) * 3
local rets = redis.call('LRANGE', KEYS[1], -n, -1)
local count = #rets
if count == 0 then
    return {}
end
redis.call('LTRIM', KEYS[1], 0, -count - 1)
local out = {}
for i = count, 1, -3 do
    out[#out + 1] = rets[i]
    out[#out + 1] = rets[i - 2]
    out[#out + 1] = rets[i - 1]
end
return out
