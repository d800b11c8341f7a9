/**
 * task-cancel: `cancelled` unless already ended (then a true that changes
 * nothing: cancel is idempotent), atomically with the first-terminal-write
 * rule; the runner's doorbell rings so its follow hears the stop.
 *
 * ARGV: taskId, statusMessage, then the tail (task-lua.ts).
 * Reply: 1 | 0 (unknown or expired).
 */
import { LuaScript } from '../lua-script.js';
import { TASK_LUA_PRELUDE } from './task-lua.js';

const BODY = `
local id, message = ARGV[1], ARGV[2]
local now = now_ms()
local task = load(id, now)
if not task then return 0 end
if TERMINAL[task.status] then return 1 end
finish(id, now, { s = 'cancelled', sm = message })
ring(id, task.rc)
return 1
`;

export const TASK_CANCEL = new LuaScript('rxmcp-task-cancel', TASK_LUA_PRELUDE + BODY);
