/**
 * The modern era over the connection-oriented transports, on the wire:
 * stdio (serveStdio on in-process streams) and WebSocket (a real socket on
 * 127.0.0.1). Each connection is pinned by its opening; a discover probe
 * does not pin; logging is per request; cancellation is
 * notifications/cancelled.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { serveWebSocket } from '../../transports/index.js';
import { note, rpc, settle, type Message } from '../contract/helpers.js';
import { RawWebSocket } from '../hostile/wire-clients.js';
import { eraServer, FIXTURE_INFO, legacyInitialize, MODERN, modernRpc, SERVER_INFO } from './modern-helpers.js';
import { stdioWire } from './stdio-wire.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** What a modern client checks on every exchange, in order. */
async function modernSession(send: (m: unknown) => void, next: () => Promise<Message>, runs: string[]): Promise<void> {
  send(modernRpc('probe', 'server/discover'));
  expect(await next()).toMatchObject({ id: 'probe', result: { resultType: 'complete', supportedVersions: [MODERN], _meta: { [SERVER_INFO]: FIXTURE_INFO } } });
  send(modernRpc(1, 'tools/call', { name: 'chatty', _meta: { progressToken: 7 } }, { logLevel: 'error' }));
  expect(await next()).toMatchObject({ method: 'notifications/message', params: { level: 'error', logger: 'tests', data: { loud: true } } });
  expect(await next()).toMatchObject({ method: 'notifications/progress', params: { progressToken: 7, progress: 1 } });
  expect(await next()).toMatchObject({ id: 1, result: { resultType: 'complete', content: [{ type: 'text', text: 'said' }] } });
  send(legacyInitialize('late-init'));
  expect(await next()).toMatchObject({ id: 'late-init', error: { code: -32022, data: { supported: [MODERN], requested: '2025-11-25' } } });
  send(modernRpc(2, 'resources/read', { uri: 'demo://missing' }));
  expect(await next()).toMatchObject({ id: 2, error: { code: -32602 } });
  send(modernRpc(3, 'tools/call', { name: 'ask_user' }));
  expect(await next()).toMatchObject({ id: 3, error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } } });
  send(modernRpc(4, 'tools/call', { name: 'hang' }));
  send(note('notifications/cancelled', { requestId: 4 }));
  send(modernRpc(5, 'ping'));
  // The cancelled call never answers: the next reply is the ping's.
  expect(await next()).toStrictEqual({ jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'Unknown method: ping' } });
  expect(runs).toEqual(['hang aborted']);
}

describe('stdio', () => {
  function stdio() {
    const { server, runs } = eraServer();
    return { runs, ...stdioWire(server, closers) };
  }

  test('a modern session: probe, per-request logging, -32022 for a late initialize, -32602, -32021, cancellation', async () => {
    const s = stdio();
    await modernSession(s.send, s.next, s.runs);
  });

  test('a legacy session after a probe: the probe pins nothing, initialize pins legacy, discover is then -32601', async () => {
    const s = stdio();
    s.send(modernRpc('probe', 'server/discover'));
    expect((await s.next()).result.supportedVersions).toEqual([MODERN]);
    s.send(legacyInitialize('init'));
    expect((await s.next()).result.protocolVersion).toBe('2025-11-25');
    s.send(modernRpc('again', 'server/discover'));
    expect(await s.next()).toStrictEqual({ jsonrpc: '2.0', id: 'again', error: { code: -32601, message: 'Unknown method: server/discover' } });
    s.send(rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'legacy' } }));
    expect(await s.next()).toStrictEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'legacy' }] } });
    await settle();
    expect(s.lines).toHaveLength(4);
  });
});

describe('WebSocket', () => {
  async function socket() {
    const { server, runs } = eraServer();
    const ws = await serveWebSocket(server, { port: 0, pingIntervalMs: null });
    closers.push(() => ws.close());
    const open = async () => {
      const s = await RawWebSocket.open(ws.url!);
      closers.push(() => s.close());
      return s;
    };
    return { runs, open };
  }

  test('a modern session: probe, per-request logging, -32022 for a late initialize, -32602, -32021, cancellation', async () => {
    const { runs, open } = await socket();
    const s = await open();
    await modernSession((m) => s.send(m), () => s.next(), runs);
  });

  test('each socket is pinned on its own: a legacy one beside a modern one', async () => {
    const { open } = await socket();
    const modern = await open();
    const legacy = await open();
    modern.send(modernRpc(1, 'tools/list'));
    legacy.send(legacyInitialize('init'));
    expect((await modern.next()).result.resultType).toBe('complete');
    expect((await legacy.next()).result.protocolVersion).toBe('2025-11-25');
    legacy.send(modernRpc(2, 'tools/list'));
    modern.send(legacyInitialize('init'));
    expect((await legacy.next()).error.code).toBe(-32600);
    expect((await modern.next()).error.code).toBe(-32022);
  });
});
