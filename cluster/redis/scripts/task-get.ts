/**
 * task-get: a task as stored, with its outstanding questions. A task not yet
 * ended whose runner's lease has lapsed (the node running it is gone: it
 * stopped renewing) is failed here, atomically, before it is answered: so a
 * task whose node died is `failed` within one lease, never `working` forever,
 * and every node reads the same. The runner, if it is only slow, hears it at
 * its next renewal.
 *
 * ARGV: taskId, the lost-runner error JSON, then the tail (task-lua.ts).
 * Reply: {'task', now, recordFields, questionFields} (flat HGETALLs) | {'missing'}.
 */
import { LuaScript } from '../lua-script.js';
import { TASK_LUA_PRELUDE } from './task-lua.js';

const BODY = `
local id, lost_error = ARGV[1], ARGV[2]
local now = now_ms()
purge(now)
local task = load(id, now)
if not task then return { 'missing' } end
local rec, inq = task_keys(id)
if not TERMINAL[task.status] and tonumber(redis.call('HGET', rec, 'l') or '0') <= now then
  finish(id, now, { s = 'failed', x = lost_error })
  redis.call('HSET', rec, 'lost', '1')
  ring(id, task.rc)
end
return { 'task', now, redis.call('HGETALL', rec), redis.call('HGETALL', inq) }
`;

export const TASK_GET = new LuaScript('rxmcp-task-get', TASK_LUA_PRELUDE + BODY);
