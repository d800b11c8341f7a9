/**
 * The task scripts' replies (scripts/task-*.ts), checked: anything not of a
 * script's shape throws, and the store fails closed on it. Records are read
 * back from the hash fields the scripts write, with the JSON the store wrote
 * parsed again; maps keyed by a client's keys have no prototype, so
 * `__proto__` stays a key.
 */
import type { InputRequest } from '../../lib/mrtr/approval-form.js';
import type { TaskError, TaskRecord, TaskStatus } from '../../lib/tasks/task-record.js';
import type { RedisReply } from './link.js';

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled']);

function bad(what: string): never {
  throw new Error(`task store: unexpected reply (${what})`);
}

function count(value: RedisReply | undefined, what: string): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) bad(what);
  return n;
}

function strings(value: RedisReply | undefined, what: string): string[] {
  if (!Array.isArray(value) || !value.every((item): item is string => typeof item === 'string')) bad(what);
  return value;
}

/** A flat HGETALL as a map with no prototype, each value passed through `read`. */
function fields<T>(value: RedisReply | undefined, what: string, read: (raw: string) => T): Record<string, T> {
  const flat = strings(value, what);
  if (flat.length % 2 !== 0) bad(what);
  const map = Object.create(null) as Record<string, T>;
  for (let i = 0; i < flat.length; i += 2) Object.defineProperty(map, flat[i]!, { value: read(flat[i + 1]!), enumerable: true });
  return map;
}

const json = (raw: string): unknown => JSON.parse(raw);

/** task-create: the Redis time it was stored at, or why not. */
export type CreateReply = { readonly kind: 'created'; readonly now: number } | { readonly kind: 'refused'; readonly bound: 'total' | 'owner' | 'bytes' } | { readonly kind: 'collision' };

export function parseCreateReply(reply: RedisReply): CreateReply {
  if (!Array.isArray(reply)) bad('create');
  if (reply[0] === 'created') return { kind: 'created', now: count(reply[1], 'create time') };
  if (reply[0] === 'collision') return { kind: 'collision' };
  if (reply[0] === 'refused' && (reply[1] === 'total' || reply[1] === 'owner' || reply[1] === 'bytes')) return { kind: 'refused', bound: reply[1] };
  return bad('create');
}

/** task-get: the record rebuilt from its hash and its questions' hash, or undefined. */
export function parseGetReply(reply: RedisReply, taskId: string): TaskRecord | undefined {
  if (!Array.isArray(reply)) bad('get');
  if (reply[0] === 'missing') return undefined;
  if (reply[0] !== 'task') bad('get');
  const rec = fields(reply[2], 'record', (raw) => raw);
  const questions = fields(reply[3], 'questions', (raw) => json(raw) as InputRequest);
  const status = rec.s;
  if (status === undefined || !STATUSES.has(status)) bad('status');
  const text = (name: string): string => (typeof rec[name] === 'string' ? rec[name] : bad(name));
  const asked = status === 'input_required' && Object.keys(questions).length > 0;
  return {
    taskId,
    owner: text('o'),
    method: text('m'),
    name: text('n'),
    status: status as TaskStatus,
    ...(rec.sm !== undefined ? { statusMessage: rec.sm } : {}),
    createdAt: count(rec.c, 'createdAt'),
    lastUpdatedAt: count(rec.u, 'lastUpdatedAt'),
    ttlMs: count(rec.t, 'ttlMs'),
    pollIntervalMs: count(rec.p, 'pollIntervalMs'),
    ...(asked ? { inputRequests: questions } : {}),
    ...(status === 'completed' && rec.r !== undefined ? { result: json(rec.r) as Record<string, unknown> } : {}),
    ...(status === 'failed' && rec.x !== undefined ? { error: json(rec.x) as TaskError } : {}),
  };
}

/** task-ask's status word. */
export type AskReply = 'ok' | 'missing' | 'ended' | 'reused' | 'full';

export function parseAskReply(reply: RedisReply): AskReply {
  if (reply === 'ok' || reply === 'missing' || reply === 'ended' || reply === 'reused' || reply === 'full') return reply;
  return bad('ask');
}

/** task-answer: the keys taken, or undefined when the task is not there. */
export function parseAnswerReply(reply: RedisReply): string[] | undefined {
  const words = strings(reply, 'answer');
  if (words[0] === 'missing' && words.length === 1) return undefined;
  if (words[0] !== 'ok') bad('answer');
  return words.slice(1);
}

/** task-finish's and task-cancel's 1 or 0. */
export function parseFlagReply(reply: RedisReply, what: string): boolean {
  if (reply === 1 || reply === 0) return reply === 1;
  return bad(what);
}

/** One task's state in task-renew's reply. */
export type RenewState =
  | { readonly kind: 'live'; readonly msLeft: number; readonly answers: Readonly<Record<string, unknown>> }
  | { readonly kind: 'gone' | 'cancelled' | 'lost' | 'ended' };

export function parseRenewReply(reply: RedisReply, expected: number): RenewState[] {
  if (!Array.isArray(reply) || reply.length !== expected) bad('renew');
  return reply.map((entry): RenewState => {
    if (!Array.isArray(entry)) bad('renew entry');
    const kind = entry[0];
    if (kind === 'live') return { kind, msLeft: count(entry[1], 'msLeft'), answers: fields(entry[2], 'answers', json) };
    if (kind === 'gone' || kind === 'cancelled' || kind === 'lost' || kind === 'ended') return { kind };
    return bad('renew entry');
  });
}
