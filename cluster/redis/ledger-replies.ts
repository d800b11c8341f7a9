/**
 * The approval-ledger scripts' replies, checked before use: a reply is
 * whatever Redis (or someone with access to it) returned, so any shape other
 * than the script's own is a `LedgerReplyError` (the ledger then fails
 * closed), never a crash or a guess.
 */
import { DENY_DETAIL } from '../../lib/deny-details.js';
import type { RedisReply } from './link.js';

class LedgerReplyError extends Error {
  override name = 'LedgerReplyError';
}

/** A holder's or peer's hash as the ledger stores it: base64url SHA-256. */
const HASH = /^[A-Za-z0-9_-]{43}$/;
/** Raw names a take or reissue answers with are capped, so a planted value cannot make a huge string. */
export const MAX_NAMES_LENGTH = 64 * 1024;

const CODES: Readonly<Record<string, string>> = { c: DENY_DETAIL.pendingOnConnection, s: DENY_DETAIL.pendingOnServer };

export interface Times {
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** Redis TIME when the script ran: the base to translate the two above to the server's clock. */
  readonly now: number;
}

export type AdmitReply =
  | { readonly kind: 'refused'; readonly detail: string; readonly gone: readonly string[] }
  | { readonly kind: 'collision'; readonly gone: readonly string[] }
  | {
      readonly kind: 'admitted';
      readonly times: Times;
      readonly outstanding: number;
      readonly victim: { readonly hid: string; readonly detail: string } | null;
      readonly gone: readonly string[];
    };

export type TicketReply =
  /** `taken` or `reissued`. */
  | { readonly kind: 'held'; readonly hid: string; readonly holder: string; readonly peer: string; readonly times: Times; readonly gone: readonly string[] }
  | { readonly kind: 'expired'; readonly hid: string; readonly gone: readonly string[] }
  /** Expired earlier (already reported by the script that purged it) and still within its grace. */
  | { readonly kind: 'lapsed'; readonly gone: readonly string[] }
  | { readonly kind: 'evicted'; readonly detail: string; readonly gone: readonly string[] }
  | { readonly kind: 'unknown'; readonly gone: readonly string[] }
  | { readonly kind: 'collision'; readonly gone: readonly string[] };

function fail(what: string): never {
  throw new LedgerReplyError(`approval ledger: unexpected script reply (${what})`);
}

function array(reply: RedisReply, what: string): RedisReply[] {
  if (!Array.isArray(reply) || reply.length === 0) fail(what);
  return reply;
}

function hash(value: RedisReply | undefined, what: string): string {
  if (typeof value !== 'string' || !HASH.test(value)) fail(what);
  return value;
}

function count(value: RedisReply | undefined, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) fail(what);
  return value;
}

function code(value: RedisReply | undefined): string {
  const detail = typeof value === 'string' ? CODES[value] : undefined;
  return detail ?? fail('tombstone code');
}

function gone(value: RedisReply | undefined): string[] {
  if (!Array.isArray(value)) fail('expired list');
  return value.map((hid) => hash(hid, 'expired holder'));
}

function times(issuedAt: RedisReply | undefined, expiresAt: RedisReply | undefined, now: RedisReply | undefined): Times {
  const t = { issuedAt: count(issuedAt, 'issuedAt'), expiresAt: count(expiresAt, 'expiresAt'), now: count(now, 'now') };
  if (t.issuedAt > t.now || t.expiresAt < t.issuedAt) fail('times out of order');
  return t;
}

function names(value: RedisReply | undefined): { holder: string; peer: string } {
  if (typeof value !== 'string' || value.length > MAX_NAMES_LENGTH) fail('names');
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    fail('names JSON');
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') fail('names shape');
  return { holder: parsed[0], peer: parsed[1] };
}

export function parseAdmitReply(reply: RedisReply): AdmitReply {
  const r = array(reply, 'admit');
  switch (r[0]) {
    case 'refused':
      return { kind: 'refused', detail: code(r[1]), gone: gone(r[2]) };
    case 'collision':
      return { kind: 'collision', gone: gone(r[1]) };
    case 'admitted': {
      const victim = r[5] === '' ? null : { hid: hash(r[5], 'victim'), detail: code(r[6]) };
      return { kind: 'admitted', times: times(r[1], r[2], r[3]), outstanding: count(r[4], 'outstanding'), victim, gone: gone(r[7]) };
    }
    default:
      return fail('admit status');
  }
}

/** The reply of ledger-take (`held` = taken) or ledger-reissue (`held` = reissued). */
export function parseTicketReply(reply: RedisReply, heldStatus: 'taken' | 'reissued'): TicketReply {
  const r = array(reply, heldStatus);
  switch (r[0]) {
    case heldStatus:
      return { kind: 'held', hid: hash(r[1], 'holder'), ...names(r[2]), times: times(r[3], r[4], r[5]), gone: gone(r[6]) };
    case 'expired':
      return { kind: 'expired', hid: hash(r[1], 'holder'), gone: gone(r[2]) };
    case 'lapsed':
      return { kind: 'lapsed', gone: gone(r[1]) };
    case 'evicted':
      return { kind: 'evicted', detail: code(r[1]), gone: gone(r[2]) };
    case 'unknown':
      return { kind: 'unknown', gone: gone(r[1]) };
    case 'collision':
      if (heldStatus === 'reissued') return { kind: 'collision', gone: gone(r[1]) };
      return fail('take status');
    default:
      return fail(`${heldStatus} status`);
  }
}

export function parseDropReply(reply: RedisReply): { readonly dropped: number; readonly gone: readonly string[] } {
  const r = array(reply, 'drop');
  if (r[0] !== 'dropped') fail('drop status');
  return { dropped: count(r[1], 'dropped'), gone: gone(r[2]) };
}
