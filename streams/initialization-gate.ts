/**
 * The initialization phase on a legacy-era connection: one decision, here.
 *
 * MCP 2025-11-25 (basic/lifecycle): initialization MUST be the first
 * interaction, and the client SHOULD NOT send requests other than pings
 * before the server has answered `initialize`. Answering anyway would answer
 * as if a revision had been agreed, and a client that pinned another one
 * would misread the reply. So, on a connection that a stdio, WebSocket or
 * legacy HTTP+SSE transport declared through `connect`, until its first
 * `initialize` arrives:
 * - `initialize` passes (and opens the connection for everything), `ping` passes;
 * - any other request is answered -32600 "send initialize first", with its id;
 * - a notification is dropped (there is nothing it could refer to yet);
 * - envelope refusals and responses go on as they would (a response answers
 *   nothing the server asked, so it is ignored anyway).
 *
 * Not gated: direct callers (`handleMessage`, `request`, `subscribe`), the
 * in-memory transport, and Streamable HTTP, whose `initialize` mints the
 * session every other POST must name. The gate screens legacy traffic only:
 * the era decision (era-decision.ts) owns it, and a modern (2026-07-28)
 * request, which has no initialize at all, never reaches it.
 */
import type { TransportKind } from '../lib/context.js';
import { invalidRequest } from '../lib/errors.js';
import type { Classified } from './classify-message.js';

const GATED: ReadonlySet<TransportKind> = new Set<TransportKind>(['stdio', 'ws', 'sse']);

const DROP: Classified = { kind: 'drop' };
const NOT_INITIALIZED = 'Invalid Request: send initialize first (this connection is not initialized)';

export class InitializationGate {
  private initialized = false;

  /** What the connection does with `classified`: itself, or the refusal or drop the phase calls for. */
  screen(classified: Classified): Classified {
    if (this.initialized) return classified;
    if (classified.kind === 'notification') return DROP;
    if (classified.kind !== 'request') return classified;
    if (classified.method === 'initialize') {
      this.initialized = true;
      return classified;
    }
    if (classified.method === 'ping') return classified;
    return { kind: 'invalid', reply: invalidRequest(classified.id, NOT_INITIALIZED) };
  }
}

/** A fresh gate for a connection declared as `transport`, or undefined when that transport is not gated. */
export function initializationGateFor(transport: TransportKind): InitializationGate | undefined {
  return GATED.has(transport) ? new InitializationGate() : undefined;
}
