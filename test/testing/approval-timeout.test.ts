/**
 * An approval on the test clock, the same test for both eras: the
 * authorizer asks, the test answers after N virtual ms. Answered at 999 ms
 * of a 1000 ms bound, the tool runs; at 1000 ms it is the seed's `timed out`
 * deny (legacy: elicitationTimeoutMs parks the call; modern: approvalTtlMs
 * bounds the ticket its retry redeems). A decline, and silence, are denies too.
 */
import { describe, expect, test } from 'vitest';
import { allowlist, Registry } from '../../lib/index.js';
import { CallAbandonedError, createTestServer, expectDenied, textOf } from '../../testing/index.js';

function approvalServer() {
  const runs: string[] = [];
  const registry = new Registry().registerTool({
    name: 'delete_item',
    inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
    annotations: { destructiveHint: true },
    handler: async ({ id }, ctx) => {
      await ctx.sleep(10);
      runs.push(`deleted ${id}`);
      return `deleted ${id}`;
    },
  });
  const t = createTestServer({
    registry,
    authorizer: allowlist([], { ask: { delete_item: 'Delete this item?' } }),
    authorizerSource: 'configured',
    elicitationTimeoutMs: 1000,
    approvalTtlMs: 1000,
  });
  return { ...t, runs };
}

describe.each(['legacy', 'modern'] as const)('an approval on the virtual clock (%s)', (era) => {
  test.each([
    [999, 'runs'],
    [1000, 'timed out'],
  ])('answered yes after %i ms: %s', async (wait, outcome) => {
    const { clock, client, runs } = approvalServer();
    const c = await client(era, { capabilities: { elicitation: {} } });
    const call = c.callTool('delete_item', { id: 7 });
    const ask = await c.nextInput();
    expect(ask).toMatchObject({ kind: 'approval', method: 'elicitation/create', message: 'Delete this item?', at: 0 });
    await clock.advance(wait);
    ask.approve();
    await clock.advance(10);
    const result = await call;
    if (outcome === 'runs') {
      expect(textOf(result)).toBe('deleted 7');
      expect(runs).toEqual(['deleted 7']);
    } else {
      expect(expectDenied(result, 'timed out')).toEqual({ error: 'authorization_required', tool: 'delete_item', decision: 'ask', detail: 'timed out' });
      expect(runs).toEqual([]);
    }
  });

  test('declined: the declined deny, the tool never runs', async () => {
    const { client, runs } = approvalServer();
    const c = await client(era, { capabilities: { elicitation: {} } });
    const call = c.callTool('delete_item', { id: 1 });
    (await c.nextInput()).decline();
    expectDenied(await call, 'declined');
    expect(runs).toEqual([]);
  });

  test('a client that cannot be asked is denied at once, the question kept as the prompt', async () => {
    const { client } = approvalServer();
    const c = await client(era);
    const result = c.callTool('delete_item', { id: 1 });
    if (era === 'legacy') {
      expect(expectDenied(await result, /^client cannot be asked/).prompt).toBe('Delete this item?');
    } else {
      await expect(result).rejects.toMatchObject({ name: 'RpcError', code: -32021 });
    }
  });
});

describe('silence is not consent', () => {
  test('legacy: an ignored approval is the timed-out deny when elicitationTimeoutMs passes', async () => {
    const { clock, client, server } = approvalServer();
    const c = await client('legacy', { capabilities: { elicitation: {} } });
    const call = c.callTool('delete_item', { id: 1 });
    (await c.nextInput()).ignore();
    await clock.advance(1000);
    expectDenied(await call, 'timed out');
    expect(server.stats().parked).toBe(0);
  });

  test('modern: ignoring every input of a round abandons the call; the ticket expires after approvalTtlMs', async () => {
    const { clock, client, server, runs } = approvalServer();
    const c = await client('modern', { capabilities: { elicitation: {} } });
    const call = c.callTool('delete_item', { id: 1 });
    (await c.nextInput()).ignore();
    const error = await call.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(CallAbandonedError);
    expect((error as CallAbandonedError).lastResult).toMatchObject({ resultType: 'input_required' });
    expect(server.stats().approvalTickets).toBe(1);
    await clock.advance(1000);
    expect(server.stats().approvalTickets).toBe(0);
    expect(runs).toEqual([]);
  });
});
