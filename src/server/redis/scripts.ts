/**
 * The Lua scripts of the shared world (`--redis`; decisions/013-redis-client.md). Each runs atomically in Redis, so what
 * replicas decide together is never read-then-write: a request's quota (`CONSUME`, the same rules as
 * `countRequest` in src/core/rate-limit.ts), a create (`CREATE`: the id, the pet and its indexes, whole
 * or not at all), and a session's first start (`SEED`: only the first replica writes it).
 *
 * Keys of one session, `<prefix>` = `petstore-mock:<session>:`: `pet` (hash id -> JSON), `ids` and
 * `status:<s>` (sorted sets by member `<20-digit order key>:<id>`, read in lexical order), `last` (the last
 * id given, INCR), `rl` (hash `<key>|<field>` -> counters), `clock` (hash frozenAt, offset), `scenario`,
 * `seeded`, `journal` (capped list of request summaries).
 */

/**
 * KEYS: rl. ARGV: key, perMinute, perDay, at, banAfterEarlyRetries, banDurationMs.
 * Returns { type, limit, remaining|until|resetAt, day, minuteStart, minuteCount, dayStart, dayCount, retryAt, earlyRetries, bannedUntil }.
 */
export const CONSUME = `
local key, perMinute, perDay, at = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local banAfter, banFor = tonumber(ARGV[5]), tonumber(ARGV[6])
local MINUTE, DAY = 60000, 86400000
local names = {'minuteStart', 'minuteCount', 'dayStart', 'dayCount', 'retryAt', 'earlyRetries', 'bannedUntil'}
local fields = {}
for i, name in ipairs(names) do fields[i] = key .. '|' .. name end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
local c = {}
for i, name in ipairs(names) do c[name] = tonumber(stored[i]) or 0 end
local minuteStart, dayStart = at - (at % MINUTE), at - (at % DAY)
if c.minuteStart ~= minuteStart then c.minuteStart = minuteStart; c.minuteCount = 0 end
if c.dayStart ~= dayStart then c.dayStart = dayStart; c.dayCount = 0 end
local function applying()
  local minuteRemaining, dayRemaining = perMinute - c.minuteCount, perDay - c.dayCount
  if dayRemaining < minuteRemaining then return perDay, dayRemaining, c.dayStart + DAY end
  return perMinute, minuteRemaining, c.minuteStart + MINUTE
end
local result
if c.bannedUntil > at then
  local limit = applying()
  result = {'banned', limit, c.bannedUntil, 0}
else
  local dayUsedUp = c.dayCount >= perDay
  if dayUsedUp or c.minuteCount >= perMinute then
    local limit, resetAt = perMinute, c.minuteStart + MINUTE
    if dayUsedUp then limit, resetAt = perDay, c.dayStart + DAY end
    if c.retryAt > at then
      c.earlyRetries = c.earlyRetries + 1
      if c.earlyRetries >= banAfter then
        c.bannedUntil = at + banFor; c.retryAt = 0; c.earlyRetries = 0
        result = {'ban', limit, c.bannedUntil, 0}
      end
    else
      c.earlyRetries = 0
    end
    if result == nil then
      c.retryAt = resetAt
      result = {'limited', limit, resetAt, dayUsedUp and 1 or 0}
    end
  else
    c.minuteCount = c.minuteCount + 1; c.dayCount = c.dayCount + 1; c.retryAt = 0; c.earlyRetries = 0
    local limit, remaining, resetAt = applying()
    result = {'ok', limit, resetAt, remaining}
  end
end
local writes = {}
for i, name in ipairs(names) do
  writes[#writes + 1] = fields[i]
  writes[#writes + 1] = string.format('%.0f', c[name])
  result[#result + 1] = string.format('%.0f', c[name])
end
redis.call('HSET', KEYS[1], unpack(writes))
result[2] = string.format('%.0f', result[2]); result[3] = string.format('%.0f', result[3]); result[4] = string.format('%.0f', result[4])
return result
`

/**
 * KEYS: last, pet, ids, status (or ids again when the pet has no status). ARGV: the pet's JSON after its id
 * (`,"name":…}`), whether it has a status ('1'/'0').
 * Returns the pet's id as a decimal string, or false when no int64 id is left (INCR would overflow).
 */
export const CREATE = `
local ok = pcall(redis.call, 'INCR', KEYS[1])
if not ok then return false end
local id = redis.call('GET', KEYS[1])
local member = '1' .. string.rep('0', 19 - #id) .. id .. ':' .. id
redis.call('HSET', KEYS[2], id, '{"id":' .. id .. ARGV[1])
redis.call('ZADD', KEYS[3], 0, member)
if ARGV[2] == '1' then redis.call('ZADD', KEYS[4], 0, member) end
return id
`

/** KEYS: index (ids or status:<s>), pet. ARGV: limit. Returns the JSON of up to `limit` pets in id order. */
export const LIST = `
local members = redis.call('ZRANGE', KEYS[1], '-', '+', 'BYLEX', 'LIMIT', 0, tonumber(ARGV[1]))
if #members == 0 then return {} end
local ids = {}
for i, member in ipairs(members) do ids[i] = string.sub(member, 22) end
return redis.call('HMGET', KEYS[2], unpack(ids))
`

/**
 * Replaces a session's whole state. KEYS: seeded, pet, ids, last, rl, clock, scenario, journal, then the status sets.
 * ARGV: onlyIfNew ('1': do nothing when `seeded` exists), last id, scenario, frozenAt ('' for none), offset,
 * the number of counter pairs N, N x (field, value), then per pet: id, member, status ('' for none), JSON.
 * Returns 1 when it wrote, 0 when the session existed (and `onlyIfNew`).
 */
export const REPLACE = `
if ARGV[1] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 2, #KEYS do if i ~= 7 then redis.call('DEL', KEYS[i]) end end
redis.call('SET', KEYS[4], ARGV[2])
redis.call('SET', KEYS[7], ARGV[3])
if ARGV[4] == '' then redis.call('HSET', KEYS[6], 'offset', ARGV[5]) else redis.call('HSET', KEYS[6], 'frozenAt', ARGV[4], 'offset', ARGV[5]) end
local n = tonumber(ARGV[6])
local i = 7
for _ = 1, n do redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1]); i = i + 2 end
local statusKeys = {}
for k = 9, #KEYS do statusKeys[string.match(KEYS[k], '[^:]+$')] = KEYS[k] end
while i <= #ARGV do
  local id, member, status, json = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  redis.call('HSET', KEYS[2], id, json)
  redis.call('ZADD', KEYS[3], 0, member)
  if status ~= '' and statusKeys[status] then redis.call('ZADD', statusKeys[status], 0, member) end
  i = i + 4
end
redis.call('SET', KEYS[1], '1')
return 1
`

/** KEYS: journal. ARGV: the cap, then the summaries' JSON, oldest first (a batch of up to 50 ms). */
export const JOURNAL = `
for i = 2, #ARGV do redis.call('LPUSH', KEYS[1], ARGV[i]) end
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[1]) - 1)
return 1
`
