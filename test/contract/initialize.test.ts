/**
 * Contract: initialize (version negotiation, capabilities, serverInfo,
 * instructions, the capability table entry), notifications/initialized and
 * ping.
 */
import { describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PACKAGE_VERSION } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';
import { Peer, makeServer, note, rpc, settle } from './helpers.js';

const EXPECTED_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

const init = (protocolVersion?: unknown) =>
  rpc(1, 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } });

describe('version negotiation', () => {
  test.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])('a supported %s is answered as asked', async (version) => {
    const reply = (await makeServer().handleMessage(init(version))) as any;
    expect(reply.result.protocolVersion).toBe(version);
  });

  test.each([['2099-01-01'], ['2024-10-07'], [''], [20250618], [undefined]])('%j is answered with the newest supported', async (version) => {
    const reply = (await makeServer().handleMessage(init(version))) as any;
    expect(reply.result.protocolVersion).toBe('2025-11-25');
  });

  test('initialize without params still answers (newest version)', async () => {
    const reply = (await makeServer().handleMessage(rpc(1, 'initialize'))) as any;
    expect(reply.result.protocolVersion).toBe('2025-11-25');
  });
});

describe('the initialize result', () => {
  test('is exactly protocolVersion, capabilities and serverInfo with the defaults', async () => {
    const reply = await makeServer().handleMessage(init('2025-06-18'));
    expect(reply).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: EXPECTED_CAPABILITIES,
        serverInfo: { name: 'rxmcp', version: PACKAGE_VERSION },
      },
    });
  });

  test('serverInfo.version is the serverVersion option; name the name option', async () => {
    const reply = (await makeServer({ serverVersion: '9.8.7', name: 'my-server' }).handleMessage(init())) as any;
    expect(reply.result.serverInfo).toStrictEqual({ name: 'my-server', version: '9.8.7' });
  });

  test('instructions appear when configured, and only then', async () => {
    const withInstructions = (await makeServer({ instructions: 'Use the tools wisely.' }).handleMessage(init())) as any;
    expect(withInstructions.result.instructions).toBe('Use the tools wisely.');
    const without = (await makeServer().handleMessage(init())) as any;
    expect('instructions' in without.result).toBe(false);
  });

  test('stores the client capabilities for this connection (one table entry per connection)', async () => {
    const server = makeServer();
    expect(server.stats().capabilityEntries).toBe(0);
    await server.handleMessage(init(), { connId: 'a' });
    await server.handleMessage(init(), { connId: 'b' });
    await server.handleMessage(init(), { connId: 'a' });
    expect(server.stats().capabilityEntries).toBe(2);
  });

  test('the official SDK client negotiates and reads serverInfo, capabilities and instructions', async () => {
    const server = makeServer({ serverVersion: '1.2.3', instructions: 'hello' });
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(new MemoryClientTransport(server));
    expect(client.getServerVersion()).toEqual({ name: 'rxmcp', version: '1.2.3' });
    expect(client.getServerCapabilities()).toEqual(EXPECTED_CAPABILITIES);
    expect(client.getInstructions()).toBe('hello');
    await client.ping();
    await client.close();
    expect(server.stats().connections).toBe(0);
  });
});

describe('notifications/initialized and ping', () => {
  test('notifications/initialized gets no reply', async () => {
    const server = makeServer();
    expect(await server.handleMessage(note('notifications/initialized'))).toBeNull();
    const peer = new Peer(server);
    peer.send(note('notifications/initialized'));
    await settle();
    expect(peer.received).toEqual([]);
    peer.close();
  });

  test('ping answers {} exactly, with or without params', async () => {
    const server = makeServer();
    expect(await server.handleMessage(rpc('p', 'ping'))).toStrictEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    expect(await server.handleMessage(rpc('q', 'ping', { _meta: { x: 1 } }))).toStrictEqual({ jsonrpc: '2.0', id: 'q', result: {} });
  });

  test('ping is answered before initialize, too (no handshake gate)', async () => {
    const peer = new Peer(makeServer());
    expect(await peer.call(1, 'ping')).toStrictEqual({ jsonrpc: '2.0', id: 1, result: {} });
    peer.close();
  });
});
