/**
 * Which of a stdio peer's requests still await their reply, so that input
 * ending (the client closed stdin: `echo '...' | node server.js`, or a
 * desktop client shutting down) can let them finish, within a bound, instead
 * of dropping them. Counted on the wire: a request line in, its response out.
 * A cancelled request gets no reply, so its notification ends it here too; a
 * `subscriptions/listen` stream only ends when the connection does, so it is
 * not waited for.
 */
import { ConfigError } from '../lib/errors.js';

/** Default of StdioOptions.drainMs. */
export const DEFAULT_DRAIN_MS = 1000;

type Message = Record<string, unknown>;

function idKey(id: unknown): string | undefined {
  return typeof id === 'string' || typeof id === 'number' ? `${typeof id}:${id}` : undefined;
}

/** A message object; anything else (an array included: MCP has no batches, an array is answered once, id null) awaits nothing. */
function asMessage(value: unknown): Message | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Message) : undefined;
}

export class AwaitedReplies {
  private readonly awaited = new Set<string>();

  get size(): number {
    return this.awaited.size;
  }

  /** A message from the peer: a request is awaited, a cancellation ends one. */
  inbound(value: unknown): void {
    const message = asMessage(value);
    if (message === undefined || typeof message.method !== 'string') return;
    if (message.method === 'notifications/cancelled') {
      const key = idKey(asMessage(message.params)?.requestId);
      if (key !== undefined) this.awaited.delete(key);
      return;
    }
    if (message.method === 'subscriptions/listen') return;
    const key = idKey(message.id);
    if (key !== undefined) this.awaited.add(key);
  }

  /** A message to the peer: a response settles its request. */
  outbound(message: unknown): void {
    const m = asMessage(message);
    if (m === undefined || typeof m.method === 'string' || !('result' in m || 'error' in m)) return;
    const key = idKey(m.id);
    if (key !== undefined) this.awaited.delete(key);
  }
}

export function drainMsOption(value: unknown): number {
  if (value === undefined) return DEFAULT_DRAIN_MS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ConfigError('drainMs', `drainMs must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return value;
}
