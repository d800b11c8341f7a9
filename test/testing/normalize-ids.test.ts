/**
 * Random ids out, stable placeholders in: a legacy approval's elicitation
 * id, a modern requestState, connection and session ids become
 * `<approval-1>`, `<requestState-1>`..., the same id the same placeholder,
 * so a snapshot or a marble diagram of a conversation with the server is
 * equal from run to run and still shows which answer went to which question.
 */
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, test } from 'vitest';
import { allowlist, createServer, Registry } from '../../lib/index.js';
import { createIdNormalizer, createTestServer, normalizeIds } from '../../testing/index.js';

const ID = 'rxmcp-elicit-AbCdEfGhIjKlMnOpQrStUvWx';

describe('normalizeIds', () => {
  test('shapes and keys: the same id keeps its placeholder, other values are left alone', () => {
    const value = {
      a: { id: ID, method: 'elicitation/create' },
      b: { jsonrpc: '2.0', id: ID, result: { action: 'accept' } },
      c: ['rxmcp-req-0123456789abcdefghij_-XY', 'memory-0123456789abcdefghij_-XY', 'node1.mcp-0123456789abcdefghij_-XY'],
      d: { requestState: 'opaque.sealed.bytes', sessionId: 'anything', connId: 'c1', id: 7, name: 'rxmcp-elicit-short' },
    };
    expect(normalizeIds(value)).toEqual({
      a: { id: '<approval-1>', method: 'elicitation/create' },
      b: { jsonrpc: '2.0', id: '<approval-1>', result: { action: 'accept' } },
      c: ['<request-1>', '<connection-1>', '<session-1>'],
      d: { requestState: '<requestState-1>', sessionId: '<session-2>', connId: '<connection-2>', id: 7, name: 'rxmcp-elicit-short' },
    });
    expect(value.a.id).toBe(ID);
  });

  test('a normalizer remembers across values; options add keys and shapes of your own', () => {
    const normalize = createIdNormalizer({ keys: { orderId: 'order' }, patterns: [[/^ord_[0-9a-f]{4}$/, 'order']] });
    expect(normalize({ orderId: 'x1' })).toEqual({ orderId: '<order-1>' });
    expect(normalize(['ord_beef', 'x1', ID])).toEqual(['<order-2>', '<order-1>', '<approval-1>']);
  });

  test('a modern conversation: each round has its own requestState; run twice, the same normalized messages', async () => {
    const conversation = async () => {
      const form = { type: 'object', properties: { ok: { type: 'boolean' } } };
      const registry = new Registry().registerTool({
        name: 'twice',
        handler: async (_args, ctx) => {
          await ctx.elicit({ message: 'First?', requestedSchema: form });
          await ctx.elicit({ message: 'Second?', requestedSchema: form });
          return 'asked twice';
        },
      });
      const { client } = createTestServer({ registry });
      const c = await client('modern', { capabilities: { elicitation: {} } });
      const call = c.callTool('twice');
      (await c.nextInput()).accept({ ok: true });
      (await c.nextInput()).accept({ ok: true });
      await call;
      return normalizeIds(c.messages);
    };
    const first = await conversation();
    expect(first.map((m) => (m.result as { requestState?: string }).requestState)).toEqual(['<requestState-1>', '<requestState-2>', undefined]);
    expect(await conversation()).toEqual(first);
  });

  test('in a marble test: the elicitation id the server made up compares as a placeholder', () => {
    const ts = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool({ name: 'wipe', handler: () => 'wiped' });
      const server = createServer({ registry, scheduler: ts, elicitationTimeoutMs: 100, authorizer: allowlist([], { ask: { wipe: 'Wipe?' } }), authorizerSource: 'configured' });
      const inbound = hot('a-c', {
        a: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'm', version: '1' } } },
        c: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wipe' } },
      });
      const denied = JSON.stringify({ error: 'authorization_required', tool: 'wipe', decision: 'ask', detail: 'timed out' });
      expectObservable(server.connect('c1', inbound).pipe(map(createIdNormalizer()))).toBe('i-e 99ms d', {
        i: expect.objectContaining({ id: 1 }),
        e: expect.objectContaining({ id: '<approval-1>', method: 'elicitation/create' }),
        d: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: denied }], isError: true } },
      });
    });
  });
});
