-- ProducerStateTable clear: drop the key set, every pending state hash and the del set.
-- KEYS[1] <T>_KEY_SET  KEYS[2] <T>_DEL_SET  ARGV[1] state-hash prefix "_<T><sep>"
redis.call('DEL', KEYS[1])
local keys = redis.call('KEYS', ARGV[1] .. '*')
for _, k in ipairs(keys) do
    redis.call('DEL', k)
end
redis.call('DEL', KEYS[2])
return #keys
