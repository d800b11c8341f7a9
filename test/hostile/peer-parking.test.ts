/**
 * Hostile finding 6: one client must not evict another client's pending
 * approval by opening many connections. Fairness on a full parking lot
 * counts peers (ConnectOptions.peer; the transports give the remote address
 * or a trusted proxy header), then connections inside a peer; a peer may
 * also hold at most maxParkedElicitationsPerPeer.
 *
 * On a virtual clock through `connect(..., { peer })`, then over a real
 * WebSocket on 127.0.0.1 where `trustedProxyHeader` makes two peers out of
 * loopback clients (and is ignored when not configured).
 */
import { DENY_DETAIL } from '../../lib/deny-details.js';
import { afterEach, describe, expect, test } from 'vitest';
import type { Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import type { WebSocket } from 'ws';
import { ConfigError, createServer, Registry, type McpServer, type OutboundMessage, type ServerOptions } from '../../lib/index.js';
import {
  askingServer,
  collectElicitationIds,
  deniedAsk,
  elicitationAnswer,
  elicitationCreate,
  initialize,
  newTestScheduler,
  newToolLog,
  resolveThunks,
  sleepTool,
  textResult,
  toolCall,
  type ToolLog,
} from '../marbles/harness.js';
import { closeAll, inbox, listen, openClient } from '../ws/helpers.js';

const FULL_SERVER = 'too many elicitations pending on this server';
const TOO_MANY = 'too many elicitations pending';
const initialized = expect.objectContaining({ id: 0, result: expect.anything() });

function connectAs(server: McpServer, connId: string, peer: string, inbound$: Observable<unknown>): Observable<OutboundMessage> {
  return server.connect(connId, resolveThunks(inbound$), { transport: 'memory', peer });
}

function parkingServer(ts: TestScheduler, log: ToolLog, caps: Record<string, number>) {
  return askingServer(ts, [sleepTool('guarded', 5, ts, log)], { elicitationTimeoutMs: 100, ...caps });
}

describe('parking fairness per peer, on a virtual clock', () => {
  test("a peer's new connections evict only that peer's calls; a newcomer peer evicts from the fullest peer", () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const victimIds: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const server = parkingServer(ts, log, { maxParkedElicitations: 1, maxParkedElicitationsPerPeer: 4, maxParkedElicitationsTotal: 4 });
      // Peer Q (the victim) parks b1 first: the oldest call on the server. Peer P parks a1, a2, a3 on
      // three connections of one call each: full. Counted by connection, A4 (holding none) would evict
      // the oldest call of the (tied) fullest connections: b1. Counted by peer, P holds the most, so A4
      // may only make room among P's own connections: a1 goes.
      const b = hot('i-b 17ms y', { i: initialize(0), b: toolCall('b1', 'guarded'), y: () => elicitationAnswer(victimIds[0], 'approve') });
      const a1 = hot('i--a', { i: initialize(0), a: toolCall('a1', 'guarded') });
      const a2 = hot('i---a', { i: initialize(0), a: toolCall('a2', 'guarded') });
      const a3 = hot('i----a', { i: initialize(0), a: toolCall('a3', 'guarded') });
      const a4 = hot('i------a', { i: initialize(0), a: toolCall('a4', 'guarded') });
      // Peer R's first call (9) evicts from P, the fullest peer: the oldest of its fullest connections, a2.
      const c = hot('i--------c', { i: initialize(0), c: toolCall('c1', 'guarded') });
      // Q's second connection (11): Q holds 1, P holds 2 (a3, a4), so P loses a3.
      const b2 = hot('i----------b', { i: initialize(0), b: toolCall('b2', 'guarded') });

      expectObservable(connectAs(server, 'B', 'Q', b).pipe(collectElicitationIds(victimIds))).toBe('n-e 22ms r', {
        n: initialized,
        e: elicitationCreate(),
        r: textResult('b1', 'done'),
      });
      expectObservable(connectAs(server, 'A1', 'P', a1)).toBe('n--e---d', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk('a1', 'guarded', FULL_SERVER),
      });
      expectObservable(connectAs(server, 'A2', 'P', a2)).toBe('n---e----d', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk('a2', 'guarded', FULL_SERVER),
      });
      expectObservable(connectAs(server, 'A3', 'P', a3)).toBe('n----e-----d', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk('a3', 'guarded', FULL_SERVER),
      });
      expectObservable(connectAs(server, 'A4', 'P', a4)).toBe('n------e 99ms t', {
        n: initialized,
        e: elicitationCreate(),
        t: deniedAsk('a4', 'guarded', DENY_DETAIL.timedOut),
      });
      expectObservable(connectAs(server, 'C', 'R', c)).toBe('n--------e 99ms t', {
        n: initialized,
        e: elicitationCreate(),
        t: deniedAsk('c1', 'guarded', DENY_DETAIL.timedOut),
      });
      expectObservable(connectAs(server, 'B2', 'Q', b2)).toBe('n----------e 99ms t', {
        n: initialized,
        e: elicitationCreate(),
        t: deniedAsk('b2', 'guarded', DENY_DETAIL.timedOut),
      });
    });
    // The victim's approval at 20 ran its tool (5 ms).
    expect(log).toEqual({ started: [20], finished: [25], aborted: [] });
  });

  test('a peer at its cap is a lot of its own: inside it a connection holding fewer evicts the fullest connection', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      // One peer (say, every client behind a proxy nobody named): its share is 3 of the server's 6.
      const server = parkingServer(ts, log, { maxParkedElicitations: 2, maxParkedElicitationsPerPeer: 3, maxParkedElicitationsTotal: 6 });
      // X parks x1, x2 and Y parks y1: the peer is at its cap. Y (1) is behind X (2): y2 closes x1 (6).
      // Z (0) is behind Y (2): z1 closes y1 (8). X's x3 (9) is behind nobody (all hold 1): denied.
      const x = hot('i-ab-----c', { i: initialize(0), a: toolCall('x1', 'guarded'), b: toolCall('x2', 'guarded'), c: toolCall('x3', 'guarded') });
      const y = hot('i---a-b', { i: initialize(0), a: toolCall('y1', 'guarded'), b: toolCall('y2', 'guarded') });
      const z = hot('i-------a', { i: initialize(0), a: toolCall('z1', 'guarded') });
      expectObservable(connectAs(server, 'X', 'proxy', x)).toBe('n-ee--d--x 93ms t', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk('x1', 'guarded', TOO_MANY),
        x: deniedAsk('x3', 'guarded', TOO_MANY),
        t: deniedAsk('x2', 'guarded', DENY_DETAIL.timedOut),
      });
      expectObservable(connectAs(server, 'Y', 'proxy', y)).toBe('n---e-e-d 97ms t', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk('y1', 'guarded', TOO_MANY),
        t: deniedAsk('y2', 'guarded', DENY_DETAIL.timedOut),
      });
      expectObservable(connectAs(server, 'Z', 'proxy', z)).toBe('n-------e 99ms t', {
        n: initialized,
        e: elicitationCreate(),
        t: deniedAsk('z1', 'guarded', DENY_DETAIL.timedOut),
      });
    });
  });

  test('past maxParkedElicitationsPerPeer a peer makes room only among its own calls, although the server has room', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = parkingServer(ts, log, { maxParkedElicitations: 2, maxParkedElicitationsPerPeer: 2, maxParkedElicitationsTotal: 8 });
      // P1 fills peer P's share (p1, p2). P2 (0) is behind P1 (2): its call closes p1 (4).
      // P1's p3 (7) is behind nobody in P: denied at once. Q, another peer, parks as if P were not there.
      const p1 = hot('i-ab---c', { i: initialize(0), a: toolCall('p1', 'guarded'), b: toolCall('p2', 'guarded'), c: toolCall('p3', 'guarded') });
      const p2 = hot('i---a', { i: initialize(0), a: toolCall('r1', 'guarded') });
      const q = hot('i-----a', { i: initialize(0), a: toolCall('q1', 'guarded') });
      expectObservable(connectAs(server, 'P1', 'P', p1)).toBe('n-eed--x 95ms t', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk('p1', 'guarded', TOO_MANY),
        x: deniedAsk('p3', 'guarded', TOO_MANY),
        t: deniedAsk('p2', 'guarded', DENY_DETAIL.timedOut),
      });
      expectObservable(connectAs(server, 'P2', 'P', p2)).toBe('n---e 99ms t', {
        n: initialized,
        e: elicitationCreate(),
        t: deniedAsk('r1', 'guarded', DENY_DETAIL.timedOut),
      });
      expectObservable(connectAs(server, 'Q1', 'Q', q)).toBe('n-----e 99ms t', {
        n: initialized,
        e: elicitationCreate(),
        t: deniedAsk('q1', 'guarded', DENY_DETAIL.timedOut),
      });
    });
  });
});

describe('maxParkedElicitationsPerPeer', () => {
  test('defaults to half the total, at least maxParkedElicitations; must lie between the two', () => {
    const refused = (options: ServerOptions) => {
      try {
        createServer(options);
      } catch (error) {
        return error as ConfigError;
      }
      throw new Error('expected a ConfigError');
    };
    for (const options of [
      { maxParkedElicitations: 4, maxParkedElicitationsPerPeer: 3 },
      { maxParkedElicitationsTotal: 8, maxParkedElicitations: 2, maxParkedElicitationsPerPeer: 9 },
      { maxParkedElicitationsPerPeer: 0 },
    ]) {
      const error = refused(options);
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.option).toBe('maxParkedElicitationsPerPeer');
    }
    expect(() => createServer({ maxParkedElicitations: 300, maxParkedElicitationsTotal: 300 })).not.toThrow();
  });
});

async function parkOne(url: string, forwardedFor: string, id: string): Promise<{ socket: WebSocket; messages: ReturnType<typeof inbox>; elicitationId: string }> {
  const socket = await openClient(url, 'mcp', { headers: { 'x-forwarded-for': forwardedFor } });
  const messages = inbox(socket);
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'h', version: '1' } } }));
  await messages.next();
  socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'guarded' } }));
  const elicitation = await messages.next();
  expect(elicitation.method).toBe('elicitation/create');
  return { socket, messages, elicitationId: String(elicitation.id) };
}

describe('over WebSocket, peers by a trusted proxy header', () => {
  afterEach(closeAll);

  async function scenario(trusted: boolean) {
    const server = createServer({
      registry: new Registry().registerTool({ name: 'guarded', handler: () => 'ran' }),
      authorizer: (name) => (name === 'guarded' ? { ask: 'Run guarded?' } : 'allow'),
      authorizerSource: 'configured',
      readAuthorizer: () => 'allow',
      maxParkedElicitations: 1,
      maxParkedElicitationsPerPeer: 4,
      maxParkedElicitationsTotal: 4,
    });
    const { url } = await listen(server, trusted ? { trustedProxyHeader: 'X-Forwarded-For' } : {});
    const victim = await parkOne(url, '198.51.100.20', 'victim');
    // The attacker: six connections through the "proxy" naming one client, each parking a call.
    const attackers = [];
    for (let i = 0; i < 6; i += 1) attackers.push(await parkOne(url, '203.0.113.66', `a${i}`));
    return { server, victim, attackers };
  }

  test('six connections of one peer cannot evict the other peer\'s parked call; its approval runs the tool', async () => {
    const { server, victim, attackers } = await scenario(true);
    expect(server.stats().parked).toBe(4);
    // The attacker's first three calls were closed by its own later connections.
    for (const [i, attacker] of attackers.slice(0, 3).entries()) {
      const denial = await attacker.messages.next();
      expect(denial.id).toBe(`a${i}`);
      expect(JSON.parse((denial.result as { content: [{ text: string }] }).content[0].text).detail).toBe(FULL_SERVER);
    }
    victim.socket.send(JSON.stringify({ jsonrpc: '2.0', id: victim.elicitationId, result: { action: 'accept', content: { approve: true } } }));
    expect(await victim.messages.next()).toEqual({ jsonrpc: '2.0', id: 'victim', result: { content: [{ type: 'text', text: 'ran' }] } });
  });

  test('without trustedProxyHeader the header is ignored: every loopback client is one peer, and its oldest call goes', async () => {
    const { victim } = await scenario(false);
    const denial = await victim.messages.next();
    expect(denial.id).toBe('victim');
    // The one peer reached its share (4) before the server was full: the seed's rule inside it.
    expect(JSON.parse((denial.result as { content: [{ text: string }] }).content[0].text).detail).toBe(TOO_MANY);
  });
});
