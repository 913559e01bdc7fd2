-- Apply many CONFIG_DB row changes atomically (ConfigDBConnector set_entry / mod_entry / delete).
-- ARGV: repeated groups  <redis key> <mode> <nfields> f1 v1 ...   mode: replace | merge | delete
--   replace: HSET the new fields and HDEL fields the row had but the new one lacks (set_entry)
--   merge:   HSET the new fields, others stay (mod_entry)
--   delete:  DEL the row
-- Field-less rows arrive as the placeholder NULL=NULL. Returns the number of rows touched.
-- A key of another type than a hash where a row is written (garbage written by hand, which readers
-- skip as no row) is replaced by the row: the change was planned and validated as the row's creation.
-- It is found by the failing command (pcall), so a hash costs nothing more.
-- KEYS[1] the generation counter, bumped by every apply. ARGV[1] the generation the changes were
-- planned on, or '' for none: when it is given and the counter moved, nothing is applied and the
-- reply is -1 (another transaction committed in between). ARGV[2], ARGV[3]: a channel ('' for none)
-- and a message PUBLISHed after the changes (a ConfigCache's marker: in its subscription, this apply's
-- keyspace events come right before it, nothing in between). The row groups start at ARGV[4].
-- KEYS[2] the channel on which the new generation is published after the changes (every apply): a
-- reader of CONFIG_DB's keyspace events that also subscribes it knows when it has seen a whole apply.
-- Last, the rows as they now are go out on NOS_CONFIG_JOURNAL (nos.schema CONFIG_DB_JOURNAL_CHANNEL),
-- JSON [generation, key, {f, v, ...} | false (deleted), ...]: the supervisor's journal of CONFIG_DB,
-- which restores it when Redis dies (nos.runtime.config_journal). A PUBLISH with nobody listening
-- costs a lookup.
local function wrong_type(reply) -- a pcall's reply: true for WRONGTYPE; any other error is raised again
    if type(reply) ~= 'table' or not reply.err then return false end
    if string.find(reply.err, 'WRONGTYPE', 1, true) then return true end
    error(reply)
end
local CHUNK = 4000 -- strings per HSET/HDEL: unpack() stays within Lua's C stack
local generation = redis.call('GET', KEYS[1]) or '0'
if ARGV[1] ~= '' and ARGV[1] ~= generation then
    return -1
end
local journal = {redis.call('INCR', KEYS[1])}
local applied = journal[1]
local i = 4
local touched = 0
while i <= #ARGV do
    local key, mode, n = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
    journal[#journal + 1] = key
    if mode == 'delete' then
        touched = touched + redis.call('DEL', key)
        journal[#journal + 1] = false
    else
        local new = {}
        for j = 0, n - 1 do
            new[ARGV[i + 3 + j * 2]] = true
        end
        if mode == 'replace' then
            local old = redis.pcall('HKEYS', key)
            if wrong_type(old) then
                redis.call('DEL', key)
                old = {}
            end
            local gone = {'HDEL', key}
            for _, f in ipairs(old) do
                if not new[f] then gone[#gone + 1] = f end
            end
            for from = 3, #gone, CHUNK do
                redis.call('HDEL', key, unpack(gone, from, math.min(from + CHUNK - 1, #gone)))
            end
        end
        if n > 0 then
            local first, last = i + 3, i + 2 + n * 2
            local upto = math.min(last, i + 2 + CHUNK)
            if wrong_type(redis.pcall('HSET', key, unpack(ARGV, first, upto))) then
                redis.call('DEL', key)
                redis.call('HSET', key, unpack(ARGV, first, upto))
            end
            for from = upto + 1, last, CHUNK do
                redis.call('HSET', key, unpack(ARGV, from, math.min(from + CHUNK - 1, last)))
            end
        end
        if mode == 'replace' and n > 0 and n * 2 <= CHUNK then
            journal[#journal + 1] = {unpack(ARGV, i + 3, i + 2 + n * 2)}
        else
            local now = redis.call('HGETALL', key)
            journal[#journal + 1] = #now > 0 and now or false
        end
        touched = touched + 1
    end
    i = i + 3 + n * 2
end
if ARGV[2] ~= '' then
    redis.call('PUBLISH', ARGV[2], ARGV[3])
end
redis.call('PUBLISH', 'NOS_CONFIG_JOURNAL', cjson.encode(journal))
redis.call('PUBLISH', KEYS[2], applied)
return touched
