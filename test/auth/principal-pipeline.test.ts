/**
 * The principal travels beside messages, never inside them: given to
 * connect / subscribe / handleMessage / request (by a transport or the
 * trusted embedding app), it reaches every authorizer and handler context;
 * nothing a client writes (clientInfo, arguments, _meta) sets or changes it;
 * only a real Principal is accepted. Telemetry names it by key only. And it
 * is the fairness key: two connections of one principal share one peer's
 * in-flight share and one peer's parking cap (virtual clock).
 */
import { describe, expect, test } from 'vitest';
import { Subject, map, timer, type SchedulerLike } from 'rxjs';
import {
  createServer,
  makePrincipal,
  Registry,
  type AuthorizationContext,
  type CallContext,
  type OutboundMessage,
  type Principal,
  type ServerEvent,
  type ServerOptions,
} from '../../lib/index.js';
import { virtualClock } from '../http/helpers.js';

const alice = makePrincipal({ kind: 'oauth', issuer: 'https://as.example.com', subject: 'alice', clientId: 'app', scopes: ['files:read'], claims: { email: 'alice@example.com' } });
const bob = makePrincipal({ kind: 'oauth', issuer: 'https://as.example.com', subject: 'bob', clientId: 'app' });
const forged = { kind: 'oauth', subject: 'root', scopes: ['admin'], key: 'forged', issuer: 'https://as.example.com', claims: {}, audience: [] };

const call = (id: unknown, name: string, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...extra } });
const init = (capabilities: Record<string, unknown> = {}, clientInfo: Record<string, unknown> = { name: 't', version: '1' }) => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities, clientInfo },
});

interface Seen {
  readonly authorizer: AuthorizationContext[];
  readonly handler: CallContext[];
  readonly reader: CallContext[];
  readonly readAuthorizer: AuthorizationContext[];
}

function recordingServer(options: ServerOptions = {}) {
  const seen: Seen = { authorizer: [], handler: [], reader: [], readAuthorizer: [] };
  const registry = new Registry()
    .registerTool({
      name: 'whoami',
      handler: (_args, ctx) => {
        seen.handler.push(ctx);
        return ctx.principal?.subject ?? 'nobody';
      },
    })
    .registerResource({
      uri: 'mem://me',
      name: 'me',
      read: (_uri, ctx) => {
        seen.reader.push(ctx);
        return ctx.principal?.subject ?? 'nobody';
      },
    });
  const server = createServer({
    registry,
    authorizerSource: 'configured',
    authorizer: (_name, _args, ctx) => {
      seen.authorizer.push(ctx);
      return 'allow';
    },
    readAuthorizer: (_name, _args, ctx) => {
      seen.readAuthorizer.push(ctx);
      return 'allow';
    },
    ...options,
  });
  const connect = (connId: string, connectOptions: Parameters<typeof server.connect>[2] = {}) => {
    const inbound = new Subject<unknown>();
    const received: OutboundMessage[] = [];
    server.connect(connId, inbound, connectOptions).subscribe((message) => received.push(message));
    return { send: (message: unknown) => inbound.next(message), received };
  };
  return { server, seen, connect };
}

const textOf = (message: OutboundMessage | null | undefined) =>
  (message as { result?: { content?: Array<{ text: string }> } } | null)?.result?.content?.[0]?.text;

describe('the principal reaches authorizers and handlers', () => {
  test('connect: every authorizer and handler context of the connection has it, the same frozen object', () => {
    const { seen, connect } = recordingServer();
    const conn = connect('c1', { transport: 'http', peer: 'addr:10.0.0.1', principal: alice });
    conn.send(init());
    conn.send(call(1, 'whoami'));
    conn.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    conn.send({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'mem://me' } });
    expect(textOf(conn.received.find((m) => 'id' in m && m.id === 1))).toBe('alice');
    expect(seen.authorizer).toEqual([
      { connId: 'c1', transport: 'http', principal: alice },
      { connId: 'c1', transport: 'http', principal: alice },
    ]);
    for (const ctx of [...seen.authorizer, ...seen.handler, ...seen.reader, ...seen.readAuthorizer]) expect(ctx.principal).toBe(alice);
    expect(seen.handler).toHaveLength(1);
    expect(seen.reader).toHaveLength(1);
    expect(Object.isFrozen(seen.handler[0]!.principal)).toBe(true);
  });

  test('an unauthenticated connection has no principal property at all (contexts keep their old shape)', () => {
    const { seen, connect } = recordingServer();
    const conn = connect('c0', { transport: 'memory' });
    conn.send(call(1, 'whoami'));
    expect(textOf(conn.received[0])).toBe('nobody');
    expect(seen.authorizer).toStrictEqual([{ connId: 'c0', transport: 'memory' }]);
    expect('principal' in seen.handler[0]!).toBe(false);
  });

  test('forged identity in clientInfo, arguments and _meta changes nothing', () => {
    const { seen, connect } = recordingServer();
    const anonymous = connect('anon', { transport: 'http' });
    const authenticated = connect('auth', { transport: 'http', principal: alice });
    for (const conn of [anonymous, authenticated]) {
      conn.send(init({}, { name: 'evil', version: '1', principal: forged }));
      conn.send(
        call(1, 'whoami', {
          arguments: { principal: forged },
          _meta: { principal: forged, 'io.modelcontextprotocol/clientInfo': { principal: forged }, connId: 'admin' },
        }),
      );
      conn.send({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'mem://me', _meta: { principal: forged } }, principal: forged });
    }
    expect(textOf(anonymous.received.find((m) => 'id' in m && m.id === 1))).toBe('nobody');
    expect(textOf(authenticated.received.find((m) => 'id' in m && m.id === 1))).toBe('alice');
    expect(seen.authorizer.map((ctx) => ctx.principal)).toEqual([undefined, alice]);
    expect(seen.handler.map((ctx) => ctx.principal)).toEqual([undefined, alice]);
    expect(seen.reader.map((ctx) => ctx.principal)).toEqual([undefined, alice]);
    expect(seen.readAuthorizer.map((ctx) => ctx.principal)).toEqual([undefined, alice]);
  });

  test('handleMessage and request: the caller principal, else the connection one', async () => {
    const { server, seen, connect } = recordingServer();
    expect(textOf(await server.handleMessage(call(1, 'whoami'), { principal: bob }))).toBe('bob');
    expect(textOf(await server.handleMessage(call(2, 'whoami')))).toBe('nobody');
    connect('c-alice', { principal: alice });
    expect(textOf(await server.handleMessage(call(3, 'whoami'), { connId: 'c-alice' }))).toBe('alice');
    expect(textOf(await server.handleMessage(call(4, 'whoami'), { connId: 'c-alice', principal: bob }))).toBe('bob');
    expect(textOf(await server.request(call(5, 'whoami'), 'c-alice').reply)).toBe('alice');
    expect(textOf(await server.request(call(6, 'whoami'), 'other', { principal: bob }).reply)).toBe('bob');
    expect(seen.authorizer.map((ctx) => ctx.principal?.subject)).toEqual(['bob', undefined, 'alice', 'bob', 'alice', 'bob']);
  });

  test('only a Principal made by makePrincipal is accepted', async () => {
    const { server } = recordingServer();
    const lookalikes = [forged, Object.freeze({ ...alice, subject: 'root' }), { ...alice }];
    for (const fake of lookalikes) {
      expect(() => server.connect('x', new Subject(), { principal: fake as unknown as Principal })).toThrow(TypeError);
      await expect(server.handleMessage(call(1, 'whoami'), { principal: fake as unknown as Principal })).rejects.toThrow(TypeError);
      expect(() => server.request(call(1, 'whoami'), 'x', { principal: fake as unknown as Principal })).toThrow(TypeError);
      expect(() => server.subscribe(() => undefined, 'x', { principal: fake as unknown as Principal })).toThrow(TypeError);
    }
    expect(server.stats().connections).toBe(0);
  });
});

describe('telemetry names the principal by key only', () => {
  test('callback_failed, elicitation_parked, elicitation_closed and client_capabilities_evicted carry the key, no claims', () => {
    const registry = new Registry()
      .registerTool({ name: 'crash', handler: () => { throw new Error('boom'); } })
      .registerTool({ name: 'guarded', handler: () => 'ran' });
    const server = createServer({
      registry,
      authorizerSource: 'configured',
      authorizer: (name) => (name === 'guarded' ? { ask: 'Run it?' } : 'allow'),
      maxClientCapabilities: 1,
    });
    const events: ServerEvent[] = [];
    server.events$.subscribe((event) => events.push(event));
    const inbound = new Subject<unknown>();
    const received: OutboundMessage[] = [];
    server.connect('c1', inbound, { principal: alice }).subscribe((m) => received.push(m));
    inbound.next(init({ elicitation: {} }));
    inbound.next(call(1, 'crash'));
    inbound.next(call(2, 'guarded'));
    const ask = received.find((m) => 'method' in m && m.method === 'elicitation/create') as { id: string };
    inbound.next({ jsonrpc: '2.0', id: ask.id, result: { action: 'decline' } });
    // Another connection initializes: the one-entry capability table evicts c1's entry.
    server.connect('c2', new Subject(), { principal: bob }).subscribe();
    void server.handleMessage(init(), { connId: 'c2', principal: bob });
    const completed = events.filter((event) => event.type === 'call_completed');
    expect(completed.length).toBeGreaterThan(0);
    expect(completed.map((event) => [event.connId, 'principal' in event ? event.principal : undefined])).toEqual(
      completed.map((event) => [event.connId, event.connId === 'c1' ? alice.key : bob.key]),
    );
    const others = events.filter((event) => event.type !== 'call_completed');
    expect(others.map((event) => [event.type, 'principal' in event ? event.principal : undefined])).toEqual([
      ['callback_failed', alice.key],
      ['elicitation_parked', alice.key],
      ['elicitation_closed', alice.key],
      ['client_capabilities_evicted', alice.key],
    ]);
    expect(JSON.stringify(events)).not.toContain('alice');
    // Without a principal, events keep their old shape.
    const plain: ServerEvent[] = [];
    const other = createServer({ registry: new Registry().registerTool({ name: 'crash', handler: () => { throw new Error('x'); } }) });
    other.events$.subscribe((event) => plain.push(event));
    void other.handleMessage(call(1, 'crash'));
    const failed = plain.filter((event) => event.type === 'callback_failed');
    expect(failed).toMatchObject([{ type: 'callback_failed', connId: 'default', method: 'tools/call', reason: 'callback_crashed' }]);
    expect(plain.some((event) => 'principal' in event)).toBe(false);
  });
});

describe('fairness keys on the principal', () => {
  function slowServer(scheduler: SchedulerLike, options: ServerOptions = {}) {
    const registry = new Registry().registerTool({ name: 'slow', handler: () => timer(1000, scheduler).pipe(map(() => 'done')) });
    return createServer({ registry, scheduler, ...options });
  }
  const BUSY = 'Error: server_busy';

  test('two connections of one principal (from two addresses) share one in-flight share; another principal has its own', () => {
    const clock = virtualClock();
    const server = slowServer(clock.scheduler); // maxInFlight 32, per connection 16, per peer 10
    const open = (connId: string, peer: string, principal?: Principal) => {
      const inbound = new Subject<unknown>();
      const received: OutboundMessage[] = [];
      server.connect(connId, inbound, principal === undefined ? { peer } : { peer, principal }).subscribe((m) => received.push(m));
      return { send: (m: unknown) => inbound.next(m), texts: () => received.map(textOf) };
    };
    const a1 = open('a1', 'addr:10.0.0.1', alice);
    const a2 = open('a2', 'addr:10.0.0.2', alice);
    for (let i = 0; i < 8; i += 1) a1.send(call(i, 'slow'));
    for (let i = 0; i < 8; i += 1) a2.send(call(i, 'slow'));
    // Keyed by address, these would be two peers holding 8 each; keyed by principal, one share of 10.
    expect(server.stats().inFlight).toBe(10);
    expect([...a1.texts(), ...a2.texts()].filter((text) => text === BUSY)).toHaveLength(6);
    // A direct call on behalf of alice counts in the same share.
    void server.handleMessage(call('direct', 'slow'), { connId: 'direct', principal: alice }).then((reply) => expect(textOf(reply)).toBe(BUSY));
    const b = open('b', 'addr:10.0.0.1', bob); // bob shares alice's first address, not her share
    for (let i = 0; i < 10; i += 1) b.send(call(i, 'slow'));
    expect(server.stats().inFlight).toBe(20);
    expect(b.texts().filter((text) => text === BUSY)).toHaveLength(0);
    clock.advance(1000);
    expect(server.stats().inFlight).toBe(0);
    expect([...a1.texts(), ...a2.texts()].filter((text) => text === 'done')).toHaveLength(10);
  });

  test('the parking cap per peer counts the principal over all its connections', () => {
    const clock = virtualClock();
    const server = slowServer(clock.scheduler, {
      authorizerSource: 'configured',
      authorizer: () => ({ ask: 'Run it?' }),
      maxParkedElicitations: 2,
      maxParkedElicitationsPerPeer: 2,
      maxParkedElicitationsTotal: 8,
      elicitationTimeoutMs: 60_000,
    });
    const open = (connId: string, peer: string, principal: Principal) => {
      const inbound = new Subject<unknown>();
      const received: OutboundMessage[] = [];
      server.connect(connId, inbound, { peer, principal }).subscribe((m) => received.push(m));
      inbound.next(init({ elicitation: {} }));
      return { send: (m: unknown) => inbound.next(m), received };
    };
    const a1 = open('a1', 'addr:10.0.0.1', alice);
    const a2 = open('a2', 'addr:10.0.0.2', alice);
    a1.send(call(1, 'slow'));
    a1.send(call(2, 'slow'));
    a2.send(call(3, 'slow'));
    // Alice's third parked call, on another connection, made room among her own: still 2 parked.
    expect(server.stats().parked).toBe(2);
    expect(a1.received.some((m) => 'id' in m && m.id === 1 && textOf(m)?.includes('too many elicitations pending'))).toBe(true);
    const b = open('b', 'addr:10.0.0.1', bob);
    b.send(call(4, 'slow'));
    expect(server.stats().parked).toBe(3);
  });
});
