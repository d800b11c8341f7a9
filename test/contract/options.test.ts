/**
 * Contract: server options. Each default, shown through behaviour (or
 * stats) where it can be; each refusal, a ConfigError naming the option;
 * and the two authorization predicates the network boot guards rely on.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { asyncScheduler, VirtualTimeScheduler } from 'rxjs';
import { ConfigError, PACKAGE_VERSION, Registry, createServer, denyAll, type ServerEvent, type ServerOptions } from '../../lib/index.js';
import { ELICITING, Peer, deniedResult, heldHandler, initialize, makeServer, rpc, settle } from './helpers.js';

function refusal(options: unknown): ConfigError {
  try {
    createServer(options as ServerOptions);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error(`expected createServer(${JSON.stringify(options)}) to refuse`);
}

function expectRefused(options: unknown, option: string) {
  const error = refusal(options);
  expect(error).toBeInstanceOf(ConfigError);
  expect(error.name).toBe('ConfigError');
  expect(error.option).toBe(option);
  expect(error.message).toContain(option);
}

function heldServer(options: ServerOptions = {}) {
  const held = heldHandler();
  const registry = new Registry().registerTool({ name: 'slow', handler: held.handler });
  registry.registerTool({ name: 'danger', handler: () => 'ran' });
  const server = makeServer({ registry, authorizer: (n) => (n === 'danger' ? { ask: 'ok?' } : 'allow'), ...options });
  return { server, held };
}

/** Sends `count` held calls on `connId` and returns how many were admitted. */
async function admitted(server: ReturnType<typeof makeServer>, held: ReturnType<typeof heldHandler>, connId: string, count: number) {
  const before = held.calls.length;
  for (let i = 0; i < count; i++) void server.handleMessage(rpc(`${connId}-${i}`, 'tools/call', { name: 'slow' }), { connId });
  await settle();
  return held.calls.length - before;
}

describe('defaults', () => {
  test('maxInFlight 32 across connections, maxInFlightPerConnection 16 (half)', async () => {
    const { server, held } = heldServer();
    expect(await admitted(server, held, 'a', 17)).toBe(16);
    expect(await admitted(server, held, 'b', 16)).toBe(16);
    expect(server.stats().inFlight).toBe(32);
    expect(await admitted(server, held, 'c', 1)).toBe(0);
  });

  test.each([
    [5, 2],
    [3, 1],
    [2, 1],
    [1, 1],
  ])('maxInFlight %i gives a default share of %i (floor of half, at least 1)', async (maxInFlight, share) => {
    const { server, held } = heldServer({ maxInFlight });
    expect(await admitted(server, held, 'a', share + 1)).toBe(share);
  });

  test('callbackTimeoutMs 300000', async () => {
    const { server } = heldServer();
    let reply: any;
    void server.handleMessage(rpc(1, 'tools/call', { name: 'slow' })).then((r) => (reply = r));
    server.virtual.maxFrames = 299_999;
    server.virtual.flush();
    await settle();
    expect(reply).toBeUndefined();
    server.virtual.maxFrames = 300_000;
    server.virtual.flush();
    await settle();
    expect(reply.result).toStrictEqual({ content: [{ type: 'text', text: 'Error: callback_timeout' }], isError: true });
  });

  test('elicitationTimeoutMs 60000', async () => {
    const { server } = heldServer();
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    peer.send(rpc('d', 'tools/call', { name: 'danger' }));
    await settle();
    server.virtual.maxFrames = 59_999;
    server.virtual.flush();
    expect(peer.responsesTo('d')).toEqual([]);
    server.virtual.maxFrames = 60_000;
    server.virtual.flush();
    expect(peer.responsesTo('d')[0].result).toStrictEqual(deniedResult('danger', 'ask', 'timed out'));
    peer.close();
  });

  test('maxParkedElicitations 32 per connection', async () => {
    const { server } = heldServer();
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    for (let i = 0; i < 33; i++) peer.send(rpc(i, 'tools/call', { name: 'danger' }));
    await settle();
    expect(peer.elicitations()).toHaveLength(32);
    expect(peer.responsesTo(32)[0].result).toStrictEqual(deniedResult('danger', 'ask', 'too many elicitations pending'));
    expect(peer.responsesTo(31)).toEqual([]);
    peer.close();
  });

  test('maxParkedElicitationsTotal 256 across the server', async () => {
    const { server } = heldServer({ maxParkedElicitations: 256 });
    const flood = new Peer(server, { connId: 'flood' });
    await flood.initialize(ELICITING);
    for (let i = 0; i < 255; i++) flood.send(rpc(i, 'tools/call', { name: 'danger' }));
    const b = new Peer(server, { connId: 'b' });
    await b.initialize(ELICITING);
    b.send(rpc('b1', 'tools/call', { name: 'danger' }));
    await settle();
    expect(server.stats().parked).toBe(256);
    expect(flood.responsesTo(0)).toEqual([]);
    const c = new Peer(server, { connId: 'c' });
    await c.initialize(ELICITING);
    c.send(rpc('c1', 'tools/call', { name: 'danger' }));
    await settle();
    expect(flood.responsesTo(0)[0].result).toStrictEqual(
      deniedResult('danger', 'ask', 'too many elicitations pending on this server'),
    );
    expect(server.stats().parked).toBe(256);
    for (const p of [flood, b, c]) p.close();
  });

  test('maxClientCapabilities 1024', async () => {
    const server = makeServer();
    const evicted: ServerEvent[] = [];
    // Only evictions: every answered request is also a call_completed event.
    server.events$.subscribe((e) => e.type !== 'call_completed' && evicted.push(e));
    for (let i = 0; i < 1024; i++) await server.handleMessage(initialize(i), { connId: `c${i}` });
    expect(evicted).toEqual([]);
    expect(server.stats().capabilityEntries).toBe(1024);
    await server.handleMessage(initialize('last'), { connId: 'c1024' });
    expect(evicted).toStrictEqual([
      { type: 'client_capabilities_evicted', connId: 'c0', size: 1024, maxClientCapabilities: 1024, liveSubscriber: false },
    ]);
  });

  test('pageSize 100: list methods answer 100 items and a cursor for the rest', async () => {
    const registry = new Registry();
    for (let i = 0; i < 101; i++) registry.registerTool({ name: `t${i}`, handler: () => 'x' });
    const server = makeServer({ registry });
    const first = (await server.handleMessage(rpc(1, 'tools/list'))) as any;
    expect(first.result.tools).toHaveLength(100);
    expect(typeof first.result.nextCursor).toBe('string');
    const second = (await server.handleMessage(rpc(2, 'tools/list', { cursor: first.result.nextCursor }))) as any;
    expect(second.result.tools.map((t: any) => t.name)).toEqual(['t100']);
    expect('nextCursor' in second.result).toBe(false);
  });

  test('name "rxmcp", serverVersion this package\'s version, transport "unknown", no instructions', async () => {
    const seen: unknown[] = [];
    const server = makeServer({ readAuthorizer: (_n, _a, ctx) => { seen.push(ctx); return 'allow'; } });
    const reply = (await server.handleMessage(initialize(1))) as any;
    expect(reply.result.serverInfo).toStrictEqual({ name: 'rxmcp', version: PACKAGE_VERSION });
    expect('instructions' in reply.result).toBe(false);
    await server.handleMessage(rpc(2, 'tools/list'));
    expect(seen).toStrictEqual([{ connId: 'default', transport: 'unknown' }]);
  });

  test('no authorizers, authorizerSource "default", no unknownToolReply, a fresh registry per server', async () => {
    const a = createServer();
    const b = createServer();
    expect(a.authorizationConfigured()).toBe(false);
    expect(a.readAuthorizationConfigured()).toBe(false);
    expect(a.registry).toBeInstanceOf(Registry);
    expect(a.registry).not.toBe(b.registry);
    a.registry.registerTool({ name: 't', handler: () => 'ran' });
    expect(((await a.handleMessage(rpc(1, 'tools/call', { name: 't' }))) as any).result.content[0].text).toBe('ran');
    expect(((await a.handleMessage(rpc(2, 'resources/list'))) as any).result).toStrictEqual({ resources: [] });
    expect(((await a.handleMessage(rpc(3, 'tools/call', { name: 'ghost' }))) as any).error.code).toBe(-32601);
    expect(((await b.handleMessage(rpc(4, 'tools/list'))) as any).result.tools).toEqual([]);
    a.close();
    b.close();
  });

  test('the scheduler defaults to asyncScheduler; a given one is used', () => {
    const server = createServer();
    expect(server.scheduler).toBe(asyncScheduler);
    server.close();
    const virtual = new VirtualTimeScheduler();
    expect(createServer({ scheduler: virtual }).scheduler).toBe(virtual);
  });

  describe('the logger', () => {
    afterEach(() => vi.restoreAllMocks());

    // The default logger writes to stderr at warn (test/features/failure-visibility.test.ts
    // checks that in a child process); stdout belongs to the stdio transport.
    test('the default logger never writes to stdout: a crash is answered, and stdout stays the wire', async () => {
      const out = vi.spyOn(process.stdout, 'write');
      const registry = new Registry().registerTool({ name: 'crash', handler: () => { throw new Error('boom'); } });
      const reply = (await makeServer({ registry }).handleMessage(rpc(1, 'tools/call', { name: 'crash' }))) as any;
      expect(reply.result.content[0].text).toBe('Error: callback_crashed');
      expect(out).not.toHaveBeenCalled();
    });
  });
});

describe('refusals: ConfigError naming the option', () => {
  const NUMERIC = [
    'maxInFlight',
    'maxInFlightPerConnection',
    'callbackTimeoutMs',
    'elicitationTimeoutMs',
    'maxParkedElicitations',
    'maxParkedElicitationsTotal',
    'maxClientCapabilities',
    'clientRequestTimeoutMs',
    'pageSize',
  ];
  const NOT_POSITIVE_INTEGERS: unknown[] = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '4', null, true, 2 ** 53];

  test.each(NUMERIC.flatMap((option) => NOT_POSITIVE_INTEGERS.map((value) => [option, value] as const)))(
    '%s: %s is not a positive integer',
    (option, value) => expectRefused({ [option]: value }, option),
  );

  test.each(NUMERIC)('%s: 1 is accepted', (option) => {
    const options: Record<string, unknown> = { [option]: 1 };
    if (option === 'maxParkedElicitationsTotal') options.maxParkedElicitations = 1;
    expect(() => createServer(options as ServerOptions)).not.toThrow();
  });

  test('maxInFlightPerConnection may not exceed maxInFlight', () => {
    expectRefused({ maxInFlight: 4, maxInFlightPerConnection: 5 }, 'maxInFlightPerConnection');
    expectRefused({ maxInFlightPerConnection: 33 }, 'maxInFlightPerConnection');
    expect(() => createServer({ maxInFlight: 4, maxInFlightPerConnection: 4 })).not.toThrow();
    expect(() => createServer({ maxInFlightPerConnection: 32 })).not.toThrow();
  });

  test('maxParkedElicitations may not exceed maxParkedElicitationsTotal', () => {
    expectRefused({ maxParkedElicitations: 10, maxParkedElicitationsTotal: 9 }, 'maxParkedElicitations');
    expectRefused({ maxParkedElicitations: 257 }, 'maxParkedElicitations');
    expectRefused({ maxParkedElicitationsTotal: 31 }, 'maxParkedElicitations');
    expect(() => createServer({ maxParkedElicitations: 256 })).not.toThrow();
    expect(() => createServer({ maxParkedElicitationsTotal: 32 })).not.toThrow();
  });

  test.each([['maxInflight'], ['authoriser'], ['timeout'], ['max_in_flight']])('an unknown option name (%s) is refused', (option) => {
    expectRefused({ [option]: 1 }, option);
  });

  test.each([['yes'], ['Configured'], [true], [1]])('authorizerSource %j is refused', (value) => {
    expectRefused({ authorizerSource: value }, 'authorizerSource');
  });

  test.each([['carrier-pigeon'], ['HTTP'], [5], [{}]])('transport %j is refused', (value) => {
    expectRefused({ transport: value }, 'transport');
  });

  test.each(['stdio', 'http', 'sse', 'ws', 'memory', 'unknown'])('transport %s is accepted', (transport) => {
    expect(() => createServer({ transport: transport as any })).not.toThrow();
  });

  test.each([
    ['authorizer', 'allow'],
    ['authorizer', {}],
    ['readAuthorizer', 'allow'],
    ['readAuthorizer', 5],
    ['unknownToolReply', 'gone'],
    ['scheduler', {}],
    ['scheduler', 'async'],
    ['logger', {}],
    ['logger', { info: () => {} }],
    ['registry', {}],
    ['instructions', 5],
    ['name', ''],
    ['name', 5],
    ['serverVersion', ''],
    ['serverVersion', 1],
  ])('%s: %j is refused', (option, value) => {
    expectRefused({ [option]: value }, option);
  });

  test('options that are not an object are refused', () => {
    expect(refusal('fast')).toBeInstanceOf(ConfigError);
    expect(refusal(null)).toBeInstanceOf(ConfigError);
  });

  test('a refused server is not half-built: the error is thrown, nothing is returned', () => {
    let server: unknown;
    expect(() => {
      server = createServer({ maxInFlight: 0 });
    }).toThrow(ConfigError);
    expect(server).toBeUndefined();
  });
});

describe('authorizationConfigured()', () => {
  test.each<[string, ServerOptions, boolean]>([
    ['nothing configured', {}, false],
    ['a strict authorizer with the default source', { authorizer: denyAll() }, false],
    ['a strict authorizer, source "default" explicitly', { authorizer: denyAll(), authorizerSource: 'default' }, false],
    ['source "configured" but no authorizer', { authorizerSource: 'configured' }, false],
    ['source "configured" and a null authorizer', { authorizerSource: 'configured', authorizer: null }, false],
    ['source "configured" and an authorizer', { authorizerSource: 'configured', authorizer: () => 'allow' }, true],
    ['a read authorizer alone', { readAuthorizer: () => 'allow', authorizerSource: 'configured' }, false],
  ])('%s -> %s', (_what, options, expected) => {
    expect(createServer(options).authorizationConfigured()).toBe(expected);
  });
});

describe('readAuthorizationConfigured()', () => {
  test.each<[string, ServerOptions, boolean]>([
    ['nothing', {}, false],
    ['a null read authorizer', { readAuthorizer: null }, false],
    ['a tool authorizer only', { authorizer: () => 'allow', authorizerSource: 'configured' }, false],
    ['a read authorizer, default source', { readAuthorizer: denyAll() }, true],
    ['a read authorizer, configured source', { readAuthorizer: () => 'allow', authorizerSource: 'configured' }, true],
  ])('%s -> %s', (_what, options, expected) => {
    expect(createServer(options).readAuthorizationConfigured()).toBe(expected);
  });
});
