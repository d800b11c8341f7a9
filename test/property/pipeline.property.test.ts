/**
 * Property tests of the pipeline as a whole.
 *
 * (a) Arbitrary JSON, and objects shaped like JSON-RPC with arbitrary fields,
 *     fed to `connect` and to `handleMessage`: the server never throws and its
 *     outbound never fails; each message gets exactly the replies the envelope
 *     rules say (one, echoing the id, or none).
 * (b) Arbitrary interleavings of calls, parking, answers, cancels, closes and
 *     virtual time (see interleaving.ts for the invariants).
 */
import fc from 'fast-check';
import { Subject, config } from 'rxjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { McpServer, OutboundMessage } from '../../lib/index.js';
import { everythingServer } from './everything-server.js';
import { command, Interleaving } from './interleaving.js';
import { anyMessage, expectedReply } from './messages.js';

const NUM_RUNS = 200;

/** rxjs reports errors thrown in a subscriber's callbacks here, not to the caller: collect them. */
const unhandled: unknown[] = [];
const previousOnUnhandledError = config.onUnhandledError;
beforeAll(() => {
  config.onUnhandledError = (error) => unhandled.push(error);
});
afterAll(() => {
  config.onUnhandledError = previousOnUnhandledError;
});

function isReply(message: OutboundMessage): boolean {
  return 'id' in message && !('method' in message) && ('result' in message || 'error' in message);
}

describe('(a) arbitrary messages', () => {
  test('through connect: each message gets exactly the replies the envelope rules say, and the connection survives', () => {
    fc.assert(
      fc.property(fc.array(anyMessage, { maxLength: 25 }), (messages) => {
        const server = everythingServer();
        const inbound = new Subject<unknown>();
        const frames: OutboundMessage[] = [];
        let ended = false;
        const subscription = server.connect('prop', inbound, { transport: 'memory' }).subscribe({
          next: (message) => frames.push(message),
          error: () => (ended = true),
          complete: () => (ended = true),
        });
        for (const message of messages) {
          const before = frames.length;
          expect(() => inbound.next(message)).not.toThrow();
          const fresh = frames.slice(before);
          const expected = expectedReply(message);
          if (expected.replies) {
            expect(fresh).toHaveLength(1);
            expect(isReply(fresh[0]!)).toBe(true);
            expect(Object.is((fresh[0] as { id: unknown }).id, expected.id)).toBe(true);
          } else {
            expect(fresh).toEqual([]);
          }
          expect(ended).toBe(false);
        }
        subscription.unsubscribe();
        expect(server.stats()).toMatchObject({ inFlight: 0, parked: 0, connections: 0, capabilityEntries: 0 });
        expect(unhandled).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('through handleMessage: a reply echoing the id exactly when the envelope rules say, else null; never a rejection', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyMessage, { maxLength: 25 }), fc.constantFrom('default', 'other'), async (messages, connId) => {
        const server = everythingServer();
        for (const message of messages) {
          const expected = expectedReply(message);
          let reply!: Awaited<ReturnType<McpServer['handleMessage']>>;
          expect(() => {
            void server.handleMessage(message, { connId }).then((r) => (reply = r));
          }).not.toThrow();
          await new Promise((resolve) => setImmediate(resolve));
          if (expected.replies) {
            expect(reply).not.toBeNull();
            expect(reply).toBeDefined();
            expect(Object.is(reply!.id, expected.id)).toBe(true);
          } else {
            expect(reply).toBeNull();
          }
        }
        expect(server.stats()).toMatchObject({ inFlight: 0, parked: 0, connections: 0, outstandingRequests: 0 });
        expect(unhandled).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('(b) interleavings on a virtual clock', () => {
  test('at most one reply per request, none late, no leaked work, and an empty server at the end', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 10, maxLength: 40 }), async (commands) => {
        const violations = await new Interleaving().run(commands);
        expect(violations).toEqual([]);
        expect(unhandled).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
