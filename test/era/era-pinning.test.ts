/**
 * The era decision (streams/stages/decide-era.ts), per policy: a connection is
 * pinned by its first request other than a server/discover probe (stdio,
 * ws, memory, custom); sse and http sessions are legacy only; direct
 * callers decide per message; ConnectOptions.era overrides the default.
 */
import { Subject } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { ConfigError, type EraPolicy, type OutboundMessage, type TransportKind } from '../../lib/index.js';
import { note, rpc, type Message } from '../contract/helpers.js';
import { eraServer, legacyInitialize, MODERN, modernRpc, PV } from './modern-helpers.js';

const LEGACY_CONNECTION =
  'Invalid Request: this connection speaks the legacy protocol (it began without io.modelcontextprotocol/protocolVersion); open a new connection for modern requests';

function connected(transport: TransportKind, era?: EraPolicy) {
  const { server, runs } = eraServer();
  const inbound = new Subject<unknown>();
  const received: Message[] = [];
  const subscription = server
    .connect(`c-${transport}`, inbound, era === undefined ? { transport } : { transport, era })
    .subscribe((m: OutboundMessage) => received.push(m));
  /** Sends one message and returns what it brought back (the fixture's handlers answer synchronously). */
  const send = (message: unknown): Message[] => {
    const before = received.length;
    inbound.next(message);
    return received.slice(before);
  };
  return { server, runs, received, send, close: () => subscription.unsubscribe() };
}

const discover = (id: unknown, version = MODERN) => modernRpc(id, 'server/discover', {}, { meta: { [PV]: version } });

describe.each(['stdio', 'ws', 'memory', 'unknown'] as const)('a connection declared %s (pinned by its first request)', (transport) => {
  test('a server/discover probe is answered and pins nothing: the client may still fall back to initialize', () => {
    const c = connected(transport);
    const [probe] = c.send(discover(1));
    expect(probe.result).toMatchObject({ resultType: 'complete', supportedVersions: [MODERN] });
    const [again] = c.send(discover(2));
    expect(again.result.supportedVersions).toEqual([MODERN]);
    const [init] = c.send(legacyInitialize('init'));
    expect(init.result.protocolVersion).toBe('2025-11-25');
    const [list] = c.send(rpc(3, 'tools/list'));
    expect(list.result).not.toHaveProperty('resultType');
    c.close();
  });

  test('the first modern request pins modern: initialize is then -32022 naming the modern revisions, a claim-less request -32602', () => {
    const c = connected(transport);
    c.send(discover(1));
    expect(c.send(modernRpc(2, 'tools/list'))[0].result.resultType).toBe('complete');
    expect(c.send(legacyInitialize('init'))).toStrictEqual([
      {
        jsonrpc: '2.0',
        id: 'init',
        error: {
          code: -32022,
          message: `Unsupported protocol version: 2025-11-25 (supported: ${MODERN})`,
          data: { supported: [MODERN], requested: '2025-11-25' },
        },
      },
    ]);
    const [claimless] = c.send(rpc(3, 'tools/list'));
    expect(claimless.error).toStrictEqual({
      code: -32602,
      message: `Invalid params: _meta["${PV}"] is required (this connection speaks the modern protocol)`,
      data: { key: PV },
    });
    expect(c.send(rpc(4, 'ping'))[0].error.code).toBe(-32602);
    // Still modern, still served.
    expect(c.send(modernRpc(5, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }))[0].result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'hi' }],
    });
    c.close();
  });

  test('a claim-less first request pins legacy: server/discover is then -32601 and a modern request -32600', () => {
    const c = connected(transport);
    c.send(legacyInitialize('init', {}));
    expect(c.send(discover(1))).toStrictEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Unknown method: server/discover' } }]);
    expect(c.send(modernRpc(2, 'tools/call', { name: 'echo', arguments: { text: 'x' } }))).toStrictEqual([
      { jsonrpc: '2.0', id: 2, error: { code: -32600, message: LEGACY_CONNECTION } },
    ]);
    expect(c.runs).toEqual([]);
    expect(c.send(rpc(3, 'tools/call', { name: 'echo', arguments: { text: 'legacy' } }))[0].result).toStrictEqual({
      content: [{ type: 'text', text: 'legacy' }],
    });
    c.close();
  });

  test('a request whose envelope is refused pins nothing', () => {
    const c = connected(transport);
    expect(c.send(discover(1, '2099-01-01'))[0].error.code).toBe(-32022);
    expect(c.send(modernRpc(2, 'tools/list', {}, { meta: { [PV]: '2025-11-25' } }))[0].error).toMatchObject({
      code: -32022,
      data: { supported: [MODERN], requested: '2025-11-25' },
    });
    expect(c.send(modernRpc(3, 'tools/list', {}, { logLevel: 'loud' }))[0].error.code).toBe(-32602);
    expect(c.send(legacyInitialize('init'))[0].result.protocolVersion).toBe('2025-11-25');
    c.close();
  });

  test('notifications/cancelled cancels a modern call: no reply, the handler aborted', () => {
    const c = connected(transport);
    expect(c.send(modernRpc(7, 'tools/call', { name: 'hang' }))).toEqual([]);
    expect(c.send(note('notifications/cancelled', { requestId: 7, reason: 'changed my mind' }))).toEqual([]);
    expect(c.runs).toEqual(['hang aborted']);
    expect(c.received).toEqual([]);
    c.close();
  });

  test('a JSON-RPC response before any pin answers nothing and pins nothing', () => {
    const c = connected(transport);
    expect(c.send({ jsonrpc: '2.0', id: 'x', result: {} })).toEqual([]);
    expect(c.send(modernRpc(1, 'tools/list'))[0].result.resultType).toBe('complete');
    expect(c.send(legacyInitialize())[0].error.code).toBe(-32022);
    c.close();
  });
});

describe('stdio, ws: the legacy initialization phase is kept for legacy traffic only', () => {
  test.each(['stdio', 'ws'] as const)('%s: a modern request is served without initialize; a ping pins legacy and a claim is then refused', (transport) => {
    const modern = connected(transport);
    expect(modern.send(modernRpc(1, 'tools/call', { name: 'echo', arguments: { text: 'no init' } }))[0].result.content[0].text).toBe('no init');
    modern.close();
    const legacy = connected(transport);
    expect(legacy.send(rpc(1, 'ping'))[0].result).toStrictEqual({});
    expect(legacy.send(modernRpc(2, 'tools/list'))[0].error).toStrictEqual({ code: -32600, message: LEGACY_CONNECTION });
    expect(legacy.send(rpc(3, 'tools/list'))[0].error.message).toBe('Invalid Request: send initialize first (this connection is not initialized)');
    legacy.close();
  });
});

describe.each(['sse', 'http'] as const)('a connection declared %s is legacy only', (transport) => {
  test('a modern request is -32600, server/discover -32601, and legacy goes on as before', () => {
    const c = connected(transport);
    if (transport === 'sse') expect(c.send(rpc(0, 'tools/list'))[0].error.code).toBe(-32600); // not initialized
    expect(c.send(discover(1))[0].error).toStrictEqual({ code: -32601, message: 'Unknown method: server/discover' });
    expect(c.send(modernRpc(2, 'tools/list'))[0].error).toStrictEqual({ code: -32600, message: LEGACY_CONNECTION });
    c.send(legacyInitialize());
    expect(c.send(modernRpc(3, 'tools/list'))[0].error.code).toBe(-32600);
    expect(c.send(rpc(4, 'tools/list'))[0].result).not.toHaveProperty('resultType');
    c.close();
  });
});

describe('direct callers decide per message', () => {
  test('handleMessage: a claim makes that one request modern, no claim legacy, on the same connection id', async () => {
    const { server } = eraServer();
    const modern = (await server.handleMessage(modernRpc(1, 'tools/list'), { connId: 'd' })) as Message;
    expect(modern.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    const legacy = (await server.handleMessage(rpc(2, 'tools/list'), { connId: 'd' })) as Message;
    expect(legacy.result).not.toHaveProperty('resultType');
    expect(((await server.handleMessage(discover(3), { connId: 'd' })) as Message).result.supportedVersions).toEqual([MODERN]);
    expect(((await server.handleMessage(rpc(4, 'server/discover'), { connId: 'd' })) as Message).error.code).toBe(-32601);
    expect(((await server.handleMessage(legacyInitialize(5), { connId: 'd' })) as Message).result.protocolVersion).toBe('2025-11-25');
    expect(((await server.handleMessage(modernRpc(6, 'initialize'), { connId: 'd' })) as Message).error.code).toBe(-32601);
  });

  test('request(): the same', async () => {
    const { server } = eraServer();
    expect(((await server.request(modernRpc(1, 'prompts/list')).reply) as Message).result.resultType).toBe('complete');
    expect(((await server.request(rpc(2, 'prompts/list')).reply) as Message).result).not.toHaveProperty('resultType');
  });
});

describe('ConnectOptions.era', () => {
  test('per-message on a stdio connection: modern and legacy requests interleave, nothing pins', () => {
    const c = connected('stdio', 'per-message');
    expect(c.send(modernRpc(1, 'tools/list'))[0].result.resultType).toBe('complete');
    expect(c.send(legacyInitialize())[0].result.protocolVersion).toBe('2025-11-25');
    expect(c.send(modernRpc(2, 'tools/list'))[0].result.resultType).toBe('complete');
    c.close();
  });

  test('legacy on an in-memory connection refuses claims', () => {
    const c = connected('memory', 'legacy');
    expect(c.send(modernRpc(1, 'tools/list'))[0].error.code).toBe(-32600);
    c.close();
  });

  test('an unknown policy is a ConfigError naming era', () => {
    const { server } = eraServer();
    expect(() => server.connect('x', new Subject(), { era: 'sometimes' as EraPolicy })).toThrow(ConfigError);
    try {
      server.connect('x', new Subject(), { era: 'sometimes' as EraPolicy });
    } catch (error) {
      expect((error as ConfigError).option).toBe('era');
    }
  });
});

describe('broadcasts', () => {
  test('a connection pinned modern gets none (list_changed, server.notify); a legacy or still open one gets them as before', () => {
    const { server } = eraServer();
    const received = new Map<string, Message[]>();
    const inbound = new Map<string, Subject<unknown>>();
    for (const name of ['modern', 'legacy', 'open']) {
      const subject = new Subject<unknown>();
      inbound.set(name, subject);
      received.set(name, []);
      server.connect(name, subject, { transport: 'memory' }).subscribe((m) => received.get(name)!.push(m));
    }
    inbound.get('modern')!.next(modernRpc(1, 'tools/list'));
    inbound.get('legacy')!.next(legacyInitialize());
    inbound.get('open')!.next(discover(1));
    for (const list of received.values()) list.length = 0;
    server.registry.registerTool({ name: 'late', handler: () => 'x' });
    (server as unknown as { virtual: { flush(): void } }).virtual.flush();
    server.notify('notifications/custom', { x: 1 });
    expect(received.get('modern')).toEqual([]);
    for (const name of ['legacy', 'open']) {
      expect(received.get(name)!.map((m) => m.method)).toEqual(['notifications/tools/list_changed', 'notifications/custom']);
    }
  });
});
