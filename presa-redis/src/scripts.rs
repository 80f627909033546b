//! The Lua scripts that change a store's shared state.
//!
//! Redis runs a script alone, so each one sees and leaves the counters and
//! indexes consistent: a quota is checked and a task inserted in one step,
//! and a record is replaced only if its version is still the one its change
//! was computed from. Every script takes the store's fixed keys and then
//! its task's keys through `KEYS` (see [`keys`](crate::keys)), and the
//! tagged prefix as `ARGV[1]`, from which it names only the keys of tasks
//! found in an index (a purge, an eviction, a page). Time is Redis's own
//! (`TIME`), so that every server agrees on when a task expires.

use redis::Script;

use crate::keys::FIXED;

/// What every script shares: key names, the clock, and how a task is
/// removed, purged or evicted.
const PRELUDE: &str = r#"
local P = ARGV[1]
local K = {}
for i, name in ipairs(FIXED) do K[name] = KEYS[i] end
local function k(name) return K[name] end
-- The task's own keys, after the fixed ones.
local function own(n) return KEYS[#FIXED + n] end
-- The keys of a task or owner that an index names: the same tag, the
-- same slot.
local function task_key(id) return P .. 'task:' .. id end
local function owned_key(owner) return P .. 'owned:' .. owner end
local function running_key(owner) return P .. 'running:' .. owner end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function number_at(key) return tonumber(redis.call('GET', key) or '0') end
-- Forgets a task's lease: it ended, or it is gone.
local function release(id)
  redis.call('ZREM', k('leases'), id)
  redis.call('HDEL', k('lease-holders'), id)
end
-- Forgets a task and what it counted, and ends its watches.
local function remove(id)
  local weight = redis.call('HGET', k('weights'), id) or '0'
  local owner = redis.call('HGET', k('owners'), id)
  if redis.call('ZREM', k('finished'), id) == 1 then
    redis.call('DECRBY', k('finished-bytes'), weight)
  elseif owner then
    redis.call('SREM', running_key(owner), id)
  end
  if owner then redis.call('ZREM', owned_key(owner), id) end
  redis.call('DECRBY', k('bytes'), weight)
  redis.call('ZREM', k('ids'), id)
  redis.call('ZREM', k('expiry'), id)
  redis.call('HDEL', k('weights'), id)
  redis.call('HDEL', k('owners'), id)
  release(id)
  redis.call('DEL', task_key(id))
  redis.call('PUBLISH', P .. 'changes:' .. id, '')
end
-- A task's record with the store's bytes, its finished bytes and the
-- record's weight, read at one instant: what a change's room depends on.
local function snapshot(id, key)
  return {redis.call('HGET', key, 'json'), number_at(k('bytes')),
    number_at(k('finished-bytes')), tonumber(redis.call('HGET', k('weights'), id) or '0')}
end
local function purge(now)
  local expired = redis.call('ZRANGEBYSCORE', k('expiry'), '-inf', now)
  for _, id in ipairs(expired) do remove(id) end
  return #expired
end
-- Evicts the task that finished first; false when no task has finished.
local function evict_one()
  local first = redis.call('ZRANGE', k('finished'), 0, 0)
  if #first == 0 then return false end
  remove(first[1])
  return true
end
"#;

/// Own KEYS: the task, its owner's running tasks, its owner's tasks.
/// ARGV: prefix, id, owner key, record JSON, version, weight, TTL in ms
/// (empty for none), max tasks, max running per owner, max store bytes.
/// Returns `ok`, `quota`, `full` or `space`.
const CREATE: &str = r#"
local id, owner, weight = ARGV[2], ARGV[3], ARGV[6]
local ttl = tonumber(ARGV[7])
local now = now_ms()
purge(now)
if redis.call('SCARD', own(2)) >= tonumber(ARGV[9]) then return 'quota' end
while redis.call('ZCARD', k('ids')) >= tonumber(ARGV[8]) do
  if not evict_one() then return 'full' end
end
while number_at(k('bytes')) + tonumber(weight) > tonumber(ARGV[10]) do
  if not evict_one() then return 'space' end
end
local key = own(1)
redis.call('HSET', key, 'json', ARGV[4], 'version', ARGV[5])
if ttl then
  redis.call('PEXPIRE', key, math.max(ttl, 1))
  redis.call('ZADD', k('expiry'), now + ttl, id)
end
redis.call('ZADD', k('ids'), 0, id)
redis.call('ZADD', own(3), 0, id)
redis.call('SADD', own(2), id)
redis.call('HSET', k('weights'), id, weight)
redis.call('HSET', k('owners'), id, owner)
redis.call('INCRBY', k('bytes'), weight)
return 'ok'
"#;

/// Own KEYS: the task. ARGV: prefix, id. Returns the record's JSON with the store's bytes, its
/// finished bytes and the record's weight, read at one instant; nil for a
/// task that is gone.
const READ: &str = r#"
local id = ARGV[2]
if redis.call('EXISTS', own(1)) == 0 then return false end
return snapshot(id, own(1))
"#;

/// Own KEYS: the task, its owner's running tasks.
/// ARGV: prefix, id, the version the change was computed from,
/// the new JSON, its version, its weight, `1` if the task just finished,
/// max store bytes, max record bytes, and the room the change was computed
/// with (empty when it need not be checked: the record did not grow, and
/// was computed from a read rather than a copy). Returns a pair: `ok` or
/// `gone` with nil, or `conflict` with what the `read` script returns,
/// when the record changed meanwhile or its room shrank, so that the
/// change can be computed again without another round trip.
const COMMIT: &str = r#"
local id = ARGV[2]
local key = own(1)
local version = redis.call('HGET', key, 'version')
if not version then return {'gone', false} end
if version ~= ARGV[3] then return {'conflict', snapshot(id, key)} end
local old = tonumber(redis.call('HGET', k('weights'), id) or '0')
local max_bytes = tonumber(ARGV[8])
if ARGV[10] ~= '' then
  local others = number_at(k('bytes')) - number_at(k('finished-bytes')) - old
  local room = math.min(tonumber(ARGV[9]), math.max(max_bytes - others, 0))
  if room < tonumber(ARGV[10]) then return {'conflict', snapshot(id, key)} end
end
redis.call('HSET', key, 'json', ARGV[4], 'version', ARGV[5])
redis.call('HSET', k('weights'), id, ARGV[6])
redis.call('INCRBY', k('bytes'), tonumber(ARGV[6]) - old)
if ARGV[7] == '1' then
  redis.call('ZADD', k('finished'), redis.call('INCR', k('finish-seq')), id)
  redis.call('INCRBY', k('finished-bytes'), ARGV[6])
  redis.call('SREM', own(2), id)
  release(id)
end
redis.call('PUBLISH', P .. 'changes:' .. id, ARGV[4])
while number_at(k('bytes')) > max_bytes do
  if not evict_one() then break end
end
return {'ok', false}
"#;

/// ARGV: prefix. Returns how many tasks were purged.
const PURGE: &str = "return purge(now_ms())";

/// ARGV: prefix. Returns how many tasks live after a purge.
const COUNT: &str = r#"
purge(now_ms())
return redis.call('ZCARD', k('ids'))
"#;

/// Own KEYS: the owner's tasks. ARGV: prefix, the lowest id (`-`, or `(`
/// and the id to start after), the page size. Returns the records' JSON, in order of id.
const LIST: &str = r#"
purge(now_ms())
local ids = redis.call('ZRANGEBYLEX', own(1), ARGV[2], '+', 'LIMIT', 0, ARGV[3])
local page = {}
for _, id in ipairs(ids) do
  local json = redis.call('HGET', task_key(id), 'json')
  if json then table.insert(page, json) end
end
return page
"#;

/// Own KEYS: the task. ARGV: prefix, id, holder, until (ms since the epoch), now (ms, the
/// caller's clock). Takes or renews the lease of a running task under
/// `Lease::may_hold`: unless another holder's lease has not lapsed at
/// `now`. Returns 1 when held, 0 otherwise.
const HOLD: &str = r#"
local id, holder, now = ARGV[2], ARGV[3], tonumber(ARGV[5])
if redis.call('EXISTS', own(1)) == 0 then return 0 end
if redis.call('ZSCORE', k('finished'), id) then return 0 end
local current = redis.call('HGET', k('lease-holders'), id)
local lapses = tonumber(redis.call('ZSCORE', k('leases'), id) or '0')
if current and current ~= holder and lapses > now then return 0 end
redis.call('ZADD', k('leases'), ARGV[4], id)
redis.call('HSET', k('lease-holders'), id, holder)
return 1
"#;

/// ARGV: prefix, now (ms since the epoch, the caller's clock), the most
/// to return. Returns the running tasks whose lease lapsed at `now`,
/// forgetting the leases of tasks that ended or are gone.
const LAPSED: &str = r#"
purge(now_ms())
local lapsed = {}
local ids = redis.call('ZRANGEBYSCORE', k('leases'), '-inf', ARGV[2])
for _, id in ipairs(ids) do
  if #lapsed >= tonumber(ARGV[3]) then break end
  if redis.call('EXISTS', task_key(id)) == 0 or redis.call('ZSCORE', k('finished'), id) then
    release(id)
  else
    table.insert(lapsed, id)
  end
end
return lapsed
"#;

/// The scripts, loaded once per store (Redis caches them by hash).
pub(crate) struct Scripts {
    /// Inserts a task within its limits.
    pub(crate) create: Script,
    /// Reads a record with what its room depends on.
    pub(crate) read: Script,
    /// Replaces a record if it is still the version read.
    pub(crate) commit: Script,
    /// Removes expired tasks.
    pub(crate) purge: Script,
    /// Counts live tasks.
    pub(crate) count: Script,
    /// A page of one owner's tasks.
    pub(crate) list: Script,
    /// Takes or renews a lease.
    pub(crate) hold: Script,
    /// Finds lapsed leases.
    pub(crate) lapsed: Script,
}

impl Scripts {
    /// Every script, with the prelude.
    pub(crate) fn new() -> Self {
        let names: Vec<String> = FIXED.iter().map(|name| format!("'{name}'")).collect();
        let fixed = format!("local FIXED = {{{}}}\n", names.join(", "));
        let script = |body: &str| Script::new(&format!("{fixed}{PRELUDE}{body}"));
        Scripts {
            create: script(CREATE),
            read: script(READ),
            commit: script(COMMIT),
            purge: script(PURGE),
            count: script(COUNT),
            list: script(LIST),
            hold: script(HOLD),
            lapsed: script(LAPSED),
        }
    }
}
