-- ProducerTable: append operations to an ordered queue (swss-common producertable.cpp semantics).
-- KEYS[1] <T>_KEY_VALUE_OP_QUEUE  KEYS[2] channel <T>_CHANNEL@<db>
-- ARGV: payload ("G"), then triples key, JSON value [f1,v1,...], op ("S<op>" or "D<op>").
-- Each triple is LPUSHed as key, value, op (so the list reads op,value,key from the head), then
-- one PUBLISH of the payload.
for i = 2, #ARGV, 3 do
    redis.call('LPUSH', KEYS[1], ARGV[i], ARGV[i + 1], ARGV[i + 2])
end
redis.call('PUBLISH', KEYS[2], ARGV[1])
return (#ARGV - 1) / 3
