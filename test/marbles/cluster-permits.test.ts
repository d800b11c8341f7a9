/**
 * The clusterPermits seam on a virtual clock: a call that passed the local
 * admission asks the pool for a permit before its body starts; the permit
 * is released exactly once however the call ends (reply, crash, timeout,
 * cancel, connection gone), including a grant that arrives after the call
 * is already over; a refusal answers server_busy with the pool's scope and
 * gives the local slot back. The pool here is `permitPool` over an acquire
 * that answers after `grantMs` of virtual time.
 */
import { defer, map, of, throwError, timer, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, test } from 'vitest';
import { createServer, makePrincipal, Registry, type McpServer, type ServerOptions } from '../../lib/index.js';
import { permitPool, type Acquired, type PermitAnswer, type PermitPool, type PermitScope } from '../../lib/ports/permits.js';
import {
  askingServer,
  cancelled,
  collectElicitationIds,
  connectMarbles,
  elicitationAnswer,
  elicitationCreate,
  initialize,
  newTestScheduler,
  newToolLog,
  readResource,
  record,
  sleepTool,
  textResult,
  toolCall,
  type Msg,
  type ToolLog,
} from './harness.js';

const WORK_MS = 10;

interface Grant {
  readonly id: number;
  readonly owner: string;
}

/** What the fake pool saw: asks, grants and releases with their frames. */
class PoolLog {
  readonly asked: Array<{ frame: number; owner: string }> = [];
  readonly granted: Array<{ frame: number; id: number }> = [];
  readonly released: Array<{ frame: number; id: number }> = [];
  readonly held = new Map<string, number>();
}

interface FakePoolOptions {
  /** Virtual ms an acquire takes; 0 answers during subscribe. */
  readonly grantMs?: number;
  /** Decides at grant time; a scope refuses. */
  readonly refuse?: (owner: string, held: number) => PermitScope | undefined;
}

function fakePool(ts: TestScheduler, log: PoolLog, options: FakePoolOptions = {}): PermitPool {
  let next = 0;
  const decide = (owner: string): Acquired<Grant> => {
    const held = log.held.get(owner) ?? 0;
    const scope = options.refuse?.(owner, held);
    if (scope !== undefined) return { granted: false, scope };
    next += 1;
    log.held.set(owner, held + 1);
    log.granted.push({ frame: ts.now(), id: next });
    return { granted: true, grant: { id: next, owner } };
  };
  const grantMs = options.grantMs ?? 0;
  return permitPool<Grant>(
    (owner) => {
      log.asked.push({ frame: ts.now(), owner });
      return grantMs === 0 ? defer(() => of(decide(owner))) : timer(grantMs, ts).pipe(map(() => decide(owner)));
    },
    (grant) => {
      log.released.push({ frame: ts.now(), id: grant.id });
      log.held.set(grant.owner, (log.held.get(grant.owner) ?? 1) - 1);
    },
  );
}

function toolServer(ts: TestScheduler, pool: PermitPool, toolLog: ToolLog, options: Partial<ServerOptions> = {}): McpServer {
  const registry = new Registry()
    .registerTool(sleepTool('work', WORK_MS, ts, toolLog))
    .registerTool({
      name: 'crash',
      handler: () => timer(WORK_MS, ts).pipe(map(() => { throw new Error('boom'); })),
    })
    .registerResource({ uri: 'mem://doc', name: 'doc', read: () => timer(WORK_MS, ts).pipe(map(() => 'text')) });
  return createServer({ registry, scheduler: ts, clusterPermits: pool, ...options });
}

/** Each grant released exactly once, at the frames given (in grant order). */
function expectReleasedOnce(log: PoolLog, frames: number[]): void {
  expect(log.released.map((r) => r.id).sort()).toEqual(log.granted.map((g) => g.id).sort());
  expect(log.released.map((r) => r.frame)).toEqual(frames);
}

const busyToolResult = (id: unknown, scope: PermitScope): Msg => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text: 'Error: server_busy' }], isError: true, _meta: { 'rxmcp/busy': { scope } } },
});

describe('a granted permit is released exactly once, however the call ends', () => {
  test('reply: asked after the local slot, body starts on the grant, released in the reply frame', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    const tool = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 3 }), tool);
      const inbound = hot('-c', { c: toolCall(1, 'work') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('- 13ms r', { r: textResult(1, 'done') });
    });
    expect(log.asked).toEqual([{ frame: 1, owner: 'c1' }]);
    expect(tool.started).toEqual([4]);
    expectReleasedOnce(log, [14]);
  });

  test('a grant during subscribe (a synchronous pool) and a synchronous handler: released before the reply leaves', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool({ name: 'now', handler: () => 'now' });
      const server = createServer({ registry, scheduler: ts, clusterPermits: fakePool(ts, log) });
      const inbound = hot('-ab', { a: toolCall(1, 'now'), b: toolCall(2, 'now') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('-ab', { a: textResult(1, 'now'), b: textResult(2, 'now') });
    });
    expectReleasedOnce(log, [1, 2]);
    expect(log.held.get('c1')).toBe(0);
  });

  test('crash: released in the frame the handler fails', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 2 }), newToolLog());
      const inbound = hot('-c', { c: toolCall(1, 'crash') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('- 12ms r', { r: textResult(1, 'Error: callback_crashed', true) });
    });
    expectReleasedOnce(log, [13]);
  });

  test('timeout: released in the timeout frame, and the handler aborted there', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    const tool = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 2 }), tool, { callbackTimeoutMs: 6 });
      const inbound = hot('-c', { c: toolCall(1, 'work') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('- 6ms r', { r: textResult(1, 'Error: callback_timeout', true) });
    });
    expect(tool).toEqual({ started: [3], finished: [], aborted: [7] });
    expectReleasedOnce(log, [7]);
  });

  test('cancel (notifications/cancelled): no reply, released in the cancel frame', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    const tool = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 1 }), tool);
      const inbound = hot('-c---x', { c: toolCall(1, 'work'), x: cancelled(1) });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('');
    });
    expect(tool.aborted).toEqual([5]);
    expectReleasedOnce(log, [5]);
  });

  test('connection gone: every permit of the connection released in the frame it leaves', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    ts.run(({ hot }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 1 }), newToolLog());
      const recorder = record(server, 'c1', hot('-ab', { a: toolCall(1, 'work'), b: toolCall(2, 'work') }), ts);
      ts.schedule(() => recorder.subscription.unsubscribe(), 6);
      ts.schedule(() => expect(server.stats().inFlight).toBe(0), 7);
    });
    expectReleasedOnce(log, [6, 6]);
  });

  test('a read (resources/read) holds a permit the same way', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 1 }), newToolLog());
      const inbound = hot('-r', { r: readResource(1, 'mem://doc') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('- 11ms r', {
        r: { jsonrpc: '2.0', id: 1, result: { contents: [{ uri: 'mem://doc', text: 'text' }] } },
      });
    });
    expectReleasedOnce(log, [12]);
  });

  test('a parked call holds no permit: the authorizer\'s is released when it parks, the approved run asks again', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    const tool = newToolLog();
    const ids: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const server = askingServer(ts, [sleepTool('guarded', WORK_MS, ts, tool)], { clusterPermits: fakePool(ts, log) });
      const inbound = hot('-i-c---a', { i: initialize(0), c: toolCall(1, 'guarded'), a: () => elicitationAnswer(ids[0], 'approve') });
      expectObservable(connectMarbles(server, 'c1', inbound).pipe(collectElicitationIds(ids))).toBe('-n-e 13ms r', {
        n: expect.objectContaining({ id: 0 }),
        e: elicitationCreate(),
        r: textResult(1, 'done'),
      });
    });
    expect(log.asked.map((a) => a.frame)).toEqual([3, 7]);
    expectReleasedOnce(log, [3, 17]);
  });
});

describe('a refused permit', () => {
  test('answers server_busy with the scope, frees the local slot at once, and the next call is admitted', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    const tool = newToolLog();
    let refusing = true;
    ts.run(({ hot, expectObservable }) => {
      const pool = fakePool(ts, log, { grantMs: 2, refuse: () => (refusing ? 'principal' : undefined) });
      // One local slot: had the refused call kept it, the second would be refused locally (no _meta, not asked).
      const server = toolServer(ts, pool, tool, { maxInFlight: 1, maxInFlightPerConnection: 1 });
      ts.schedule(() => expect(server.stats().inFlight).toBe(0), 4);
      ts.schedule(() => (refusing = false), 4);
      const inbound = hot('-a---b', { a: toolCall(1, 'work'), b: toolCall(2, 'work') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('---a 13ms b', { a: busyToolResult(1, 'principal'), b: textResult(2, 'done') });
    });
    expect(log.asked.map((a) => a.frame)).toEqual([1, 5]);
    expect(tool.started).toEqual([7]);
    expectReleasedOnce(log, [17]);
  });

  test('a read refused cluster-wide is -32603 with data.scope "cluster"', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { refuse: () => 'cluster' }), newToolLog());
      const inbound = hot('-r', { r: readResource(1, 'mem://doc') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('-r', {
        r: {
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32603, message: 'MCP callback failed', data: { error: 'server_busy', method: 'resources/read', scope: 'cluster' } },
        },
      });
      ts.schedule(() => expect(server.stats().inFlight).toBe(0), 1);
    });
    expect(log.released).toEqual([]);
  });

  test('a local refusal is not asked of the pool and carries no scope', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 1 }), newToolLog(), { maxInFlight: 1, maxInFlightPerConnection: 1 });
      const inbound = hot('-ab', { a: toolCall(1, 'work'), b: toolCall(2, 'work') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('--b 9ms a', {
        a: textResult(1, 'done'),
        b: textResult(2, 'Error: server_busy', true),
      });
    });
    expect(log.asked).toHaveLength(1);
  });

  test('a pool that errors, throws, or answers off-contract, refuses with scope "cluster" (fail closed) and frees the slot', () => {
    const ts = newTestScheduler();
    const tool = newToolLog();
    const failing: PermitPool = { permit: () => throwError(() => new Error('redis down')) };
    const garbled: PermitPool = { permit: () => of(null as unknown as PermitAnswer) };
    const throwing: PermitPool = {
      permit: () => {
        throw new Error('pool bug');
      },
    };
    ts.run(({ hot, expectObservable }) => {
      for (const [connId, pool] of [['c1', failing], ['c2', garbled], ['c3', throwing]] as const) {
        const server = toolServer(ts, pool, tool, { maxInFlight: 1, maxInFlightPerConnection: 1 });
        const inbound = hot('-a', { a: toolCall(1, 'work') });
        expectObservable(connectMarbles(server, connId, inbound)).toBe('-a', { a: busyToolResult(1, 'cluster') });
        ts.schedule(() => expect(server.stats().inFlight).toBe(0), 2);
      }
    });
    expect(tool.started).toEqual([]);
  });
});

describe('a slow grant racing the end of the call', () => {
  test('a cancel before the grant: no reply, the body never starts, and the late grant is released when it arrives', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    const tool = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 50 }), tool);
      const inbound = hot('-c 9ms x', { c: toolCall(1, 'work'), x: cancelled(1) });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('');
      ts.schedule(() => expect(server.stats().inFlight).toBe(0), 12);
    });
    expect(tool.started).toEqual([]);
    expect(log.granted).toEqual([{ frame: 51, id: 1 }]);
    expectReleasedOnce(log, [51]);
    expect(log.held.get('c1')).toBe(0);
  });

  test('a timeout before the grant: callback_timeout at the deadline, the late grant released when it arrives', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    const tool = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 50 }), tool, { callbackTimeoutMs: 20 });
      const inbound = hot('-c', { c: toolCall(1, 'work') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('- 20ms r', { r: textResult(1, 'Error: callback_timeout', true) });
    });
    expect(tool.started).toEqual([]);
    expectReleasedOnce(log, [51]);
  });

  test('a late refusal after a cancel releases nothing', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = toolServer(ts, fakePool(ts, log, { grantMs: 50, refuse: () => 'cluster' }), newToolLog());
      const inbound = hot('-c 9ms x', { c: toolCall(1, 'work'), x: cancelled(1) });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('');
    });
    expect(log.released).toEqual([]);
  });
});

describe('the owner a permit is asked for is the fairness key', () => {
  test('the principal\'s key when authenticated, else the transport peer, else the connection', () => {
    const ts = newTestScheduler();
    const log = new PoolLog();
    const alice = makePrincipal({ kind: 'local', subject: 'alice' });
    ts.run(({ hot }) => {
      const server = toolServer(ts, fakePool(ts, log), newToolLog());
      const call = (): Observable<unknown> => hot('-c', { c: toolCall(1, 'work') });
      server.connect('p', call(), { transport: 'memory', principal: alice, peer: '10.0.0.1' }).subscribe();
      server.connect('q', call(), { transport: 'memory', peer: '10.0.0.2' }).subscribe();
      server.connect('r', call(), { transport: 'memory' }).subscribe();
    });
    expect(log.asked.map((a) => a.owner)).toEqual([`principal:${alice.key}`, '10.0.0.2', 'r']);
  });

  test('createServer refuses a clusterPermits that is not a PermitPool', () => {
    expect(() => createServer({ clusterPermits: {} as PermitPool })).toThrow(/clusterPermits/);
  });
});
