/**
 * Contract gap: tools/list lists "the registered tools this caller may
 * call". Without a tool authorizer a sensitive tool registered after boot,
 * or derived, is refused to every caller at tools/call
 * (sensitive_tool_unguarded), so it must not be listed either. With an
 * authorizer the authorizer decides, as before.
 */
import { describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Registry } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';
import { deniedResult, makeServer, rpc } from '../contract/helpers.js';

const names = (reply: any): string[] => reply.result.tools.map((tool: { name: string }) => tool.name);

function unguardedServer() {
  const registry = new Registry().registerTool({ name: 'plain', handler: () => 'plain' });
  const server = makeServer({ registry }); // no tool authorizer
  registry.registerTool({ name: 'late_wipe', annotations: { destructiveHint: true }, handler: () => 'wiped' });
  registry.registerTool({ name: 'derived_pay', sensitive: true, handler: () => 'paid' }, { derived: true });
  registry.registerTool({ name: 'late_flagged', annotations: { sensitive: true }, handler: () => 'x' });
  return server;
}

describe('no tool authorizer', () => {
  test('a sensitive tool registered late or derived is neither listed nor callable; the rest is both', async () => {
    const server = unguardedServer();
    expect(names(await server.handleMessage(rpc(1, 'tools/list')))).toEqual(['plain']);
    for (const name of ['late_wipe', 'derived_pay', 'late_flagged']) {
      const reply = (await server.handleMessage(rpc(name, 'tools/call', { name }))) as any;
      expect(reply.result).toStrictEqual(deniedResult(name, 'deny', 'sensitive_tool_unguarded'));
    }
    expect(((await server.handleMessage(rpc(2, 'tools/call', { name: 'plain' }))) as any).result.content[0].text).toBe('plain');
  });

  test('the official client sees the same list', async () => {
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(new MemoryClientTransport(unguardedServer()));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['plain']);
    await client.close();
  });

  test('paging counts only what is listed', async () => {
    const registry = new Registry();
    const server = makeServer({ registry, pageSize: 2 });
    registry.registerTool({ name: 'a_wipe', sensitive: true, handler: () => 'x' });
    registry.registerTool({ name: 'b', handler: () => 'x' });
    registry.registerTool({ name: 'c_wipe', sensitive: true, handler: () => 'x' });
    registry.registerTool({ name: 'd', handler: () => 'x' });
    const first = (await server.handleMessage(rpc(1, 'tools/list'))) as any;
    expect(names(first)).toEqual(['b', 'd']);
    expect(first.result.nextCursor).toBeUndefined();
  });
});

describe('with a tool authorizer', () => {
  test('the same tools are listed when the authorizer allows or asks, and hidden when it denies', async () => {
    const registry = new Registry().registerTool({ name: 'plain', handler: () => 'plain' });
    const server = makeServer({
      registry,
      authorizer: (name) => (name === 'late_wipe' ? { ask: 'Wipe?' } : name === 'derived_pay' ? { deny: 'no' } : 'allow'),
    });
    registry.registerTool({ name: 'late_wipe', annotations: { destructiveHint: true }, handler: () => 'wiped' });
    registry.registerTool({ name: 'derived_pay', sensitive: true, handler: () => 'paid' }, { derived: true });
    registry.registerTool({ name: 'late_flagged', annotations: { sensitive: true }, handler: () => 'x' });
    expect(names(await server.handleMessage(rpc(1, 'tools/list')))).toEqual(['plain', 'late_wipe', 'late_flagged']);
    expect(((await server.handleMessage(rpc(2, 'tools/call', { name: 'late_flagged' }))) as any).result.content[0].text).toBe('x');
  });
});
