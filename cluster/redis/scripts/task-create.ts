/**
 * task-create: stores a new `working` task if the bounds allow, atomically,
 * so the caps hold across every node however many create at once. Expired
 * tasks are purged first (their room given back). The creating node is the
 * task's runner: its lease starts now.
 *
 * ARGV: taskId, owner, ownerHash, method, name, ttlMs, pollIntervalMs, leaseMs,
 * maxTasks, maxTasksPerOwner, maxRetainedBytes, taskBytes, then the tail (task-lua.ts).
 * Reply: {'created', now} | {'refused', 'total' | 'owner' | 'bytes'} | {'collision'}.
 */
import { LuaScript } from '../lua-script.js';
import { TASK_LUA_PRELUDE } from './task-lua.js';

const BODY = `
local id, owner, hid, method, name = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local ttl, poll, lease = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local max_tasks, max_owner, max_bytes, task_bytes = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local now = now_ms()
purge(now)
local rec = task_keys(id)
if redis.call('EXISTS', rec) == 1 or redis.call('HEXISTS', META, id) == 1 then return { 'collision' } end
if redis.call('ZCARD', EXP) >= max_tasks then return { 'refused', 'total' } end
if tonumber(redis.call('HGET', OC, hid) or '0') >= max_owner then return { 'refused', 'owner' } end
if retained() + task_bytes > max_bytes then return { 'refused', 'bytes' } end
local expires = now + ttl
redis.call('HSET', rec, 'o', owner, 'm', method, 'n', name, 's', 'working', 'c', now, 'u', now, 'e', expires, 't', ttl, 'p', poll, 'l', now + lease)
redis.call('PEXPIRE', rec, ttl)
redis.call('ZADD', EXP, expires, id)
redis.call('HSET', META, id, hid .. ' ' .. string.format('%d', task_bytes))
redis.call('HINCRBY', OC, hid, 1)
redis.call('INCRBY', BYTES, task_bytes)
touch()
return { 'created', now }
`;

export const TASK_CREATE = new LuaScript('rxmcp-task-create', TASK_LUA_PRELUDE + BODY);
