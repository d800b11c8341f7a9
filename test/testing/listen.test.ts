/**
 * Change notifications through the test client: a modern client's
 * subscriptions/listen stream (acknowledged with the honoured filter, then
 * the coalesced list changes, tagged and filed under their stream), and a
 * legacy client's broadcasts. List changes are coalesced on the server's
 * clock (a 0 ms timer), so settling the test clock delivers them.
 */
import { describe, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { createTestServer, RpcError } from '../../testing/index.js';

const tool = (name: string) => ({ name, handler: () => name });

describe('subscriptions/listen on a modern test client', () => {
  test('acknowledged, then one tools/list_changed per clock tick, until the client closes the stream', async () => {
    const registry = new Registry().registerTool(tool('a'));
    const { clock, client, server } = createTestServer({ registry });
    const c = await client('modern');
    const stream = await c.listen({ toolsListChanged: true, promptsListChanged: false });
    expect(stream.acknowledged).toEqual({ toolsListChanged: true });
    registry.registerTool(tool('b'));
    registry.registerTool(tool('c'));
    await clock.settle();
    expect(stream.notifications).toEqual([{ method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': stream.id } }, at: 0 }]);
    await clock.advance(50);
    registry.registerPrompt({ name: 'p', get: () => 'p' });
    registry.registerTool(tool('d'));
    await clock.settle();
    expect(stream.methods).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);
    expect(stream.notifications[1]!.at).toBe(50);
    stream.close();
    await clock.settle();
    expect(server.stats().listens).toBe(0);
    registry.registerTool(tool('e'));
    await clock.settle();
    expect(stream.notifications).toHaveLength(2);
  });

  test('server.close() answers the stream with its graceful result', async () => {
    const { client, server } = createTestServer({ registry: new Registry() });
    const c = await client('modern');
    const stream = await c.listen({ toolsListChanged: true });
    server.close();
    await expect(stream.result).resolves.toMatchObject({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': stream.id } });
  });

  test('a refused listen rejects with the RpcError', async () => {
    const { client } = createTestServer({ registry: new Registry(), maxListensPerConnection: 1 });
    const c = await client('modern');
    await c.listen({ toolsListChanged: true });
    const refused = await c.listen({ toolsListChanged: true }).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(RpcError);
    expect(refused).toMatchObject({ code: -32603, data: { error: 'too_many_subscriptions', scope: 'connection' } });
  });
});

describe('a legacy test client', () => {
  test('receives list changes as broadcasts, and cannot listen', async () => {
    const registry = new Registry();
    const { clock, client } = createTestServer({ registry });
    const c = await client('legacy');
    registry.registerTool(tool('a'));
    await clock.settle();
    expect(c.notifications('notifications/tools/list_changed')).toHaveLength(1);
    await expect(c.listen({ toolsListChanged: true })).rejects.toThrow(/use a modern client/);
  });
});
