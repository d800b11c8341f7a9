/**
 * The middleware seam on a virtual clock: which calls pass through the
 * stages and in what order, what a stage sees of its call, how a stage
 * answers by itself (the handler never runs), and that the worker around the
 * stages keeps the contract whatever they do: one reply, a crash for an
 * error or an empty stream, the callback timeout for silence, and
 * cancellation reaching the handler through them.
 */
import { EMPTY, NEVER, concat, defer, finalize, map, of, switchMap, tap, throwError, timer, type Observable } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { allowlist, createServer, progressUpdate, Registry, type AdmittedCall, type CallContext, type Middleware, type ServerOptions } from '../../lib/index.js';
import {
  cancelled,
  elicitationAnswer,
  initialize,
  newTestScheduler,
  newToolLog,
  readResource,
  record,
  sleepTool,
  textResult,
  toolCall,
} from './harness.js';

type Msg = Record<string, unknown>;

const rpc = (id: unknown, method: string, params?: Msg): Msg => ({ jsonrpc: '2.0', id, method, params });

/** A registry with one of everything a stage can see: a tool, a resource, a prompt with a completer. */
function surfaces(counts: { tool: number; read: number; prompt: number; complete: number }, ctxSeen: CallContext[] = []): Registry {
  return new Registry()
    .registerTool({
      name: 'echo',
      handler: (args, ctx) => {
        counts.tool += 1;
        ctxSeen.push(ctx);
        return `echo ${String(args.text)}`;
      },
    })
    .registerTool({ name: 'secret', handler: () => 'password=hunter2' })
    .registerResource({
      uri: 'mem://a',
      name: 'a',
      read: () => {
        counts.read += 1;
        return 'A';
      },
    })
    .registerPrompt({
      name: 'greet',
      arguments: [{ name: 'who' }],
      get: (args) => {
        counts.prompt += 1;
        return `Hello ${args.who}`;
      },
      complete: {
        who: (value) => {
          counts.complete += 1;
          return [`${value}1`];
        },
      },
    });
}

function zero() {
  return { tool: 0, read: 0, prompt: 0, complete: 0 };
}

/** Records each call a stage sees, and the kind of reply that passes it. */
function recording(seen: Array<[string, string | undefined, string]>, tag = ''): Middleware {
  return () => (call) =>
    tap((reply) => seen.push([`${tag}${call.method}`, call.name ?? call.uri, reply.error !== undefined ? `error ${reply.error.code}` : 'result']));
}

describe('which calls pass through the stages', () => {
  test('tools/call, resources/read, prompts/get and completion/complete do; lists, ping and initialize do not', () => {
    const ts = newTestScheduler();
    const seen: Array<[string, string | undefined, string]> = [];
    ts.run(({ hot, flush }) => {
      const server = createServer({ registry: surfaces(zero()), scheduler: ts, middleware: [recording(seen)] });
      const inbound = hot('-abcdefghi', {
        a: initialize('i', {}),
        b: rpc(1, 'ping'),
        c: rpc(2, 'tools/list'),
        d: toolCall(3, 'echo', { text: 'x' }),
        e: readResource(4, 'mem://a'),
        f: rpc(5, 'prompts/get', { name: 'greet', arguments: { who: 'Ann' } }),
        g: rpc(6, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }),
        h: rpc(7, 'resources/list'),
        i: readResource(8, 'mem://missing'),
      });
      const rec = record(server, 'c1', inbound, ts);
      flush();
      expect(rec.frames.map((f) => (f.message as { id?: unknown }).id)).toEqual(['i', 1, 2, 3, 4, 5, 6, 7, 8]);
    });
    expect(seen).toEqual([
      ['tools/call', 'echo', 'result'],
      ['resources/read', 'mem://a', 'result'],
      ['prompts/get', 'greet', 'result'],
      ['completion/complete', undefined, 'result'],
      // The method's own -32602 answer passes the stages like any reply.
      ['resources/read', 'mem://missing', 'error -32602'],
    ]);
  });

  test('the first stage is the outermost: it sees the call first and its reply last', () => {
    const ts = newTestScheduler();
    const order: string[] = [];
    const stage =
      (name: string): Middleware =>
      () =>
      () =>
      (reply$) =>
        defer(() => {
          order.push(`${name} in`);
          return reply$.pipe(tap(() => order.push(`${name} out`)));
        });
    ts.run(({ hot, flush }) => {
      const server = createServer({ registry: surfaces(zero()), scheduler: ts, middleware: [stage('outer'), stage('inner')] });
      record(server, 'c1', hot('-a', { a: toolCall(1, 'echo', { text: 'x' }) }), ts);
      flush();
    });
    expect(order).toEqual(['outer in', 'inner in', 'inner out', 'outer out']);
  });

  test('a denied call never reaches the stages (they run after the authorizer), an allowed one does', () => {
    const ts = newTestScheduler();
    const seen: Array<[string, string | undefined, string]> = [];
    ts.run(({ hot, expectObservable }) => {
      const server = createServer({
        registry: surfaces(zero()),
        scheduler: ts,
        authorizer: allowlist(['echo']),
        middleware: [recording(seen)],
      });
      const inbound = hot('-ab', { a: toolCall(1, 'secret'), b: toolCall(2, 'echo', { text: 'y' }) });
      expectObservable(server.connect('c1', inbound)).toBe('-ab', {
        a: textResult(1, JSON.stringify({ error: 'authorization_required', tool: 'secret', decision: 'deny', detail: 'not_allowlisted' }), true),
        b: textResult(2, 'echo y'),
      });
    });
    expect(seen).toEqual([['tools/call', 'echo', 'result']]);
  });

  test('a call approved through elicitation passes through the stages when it runs', () => {
    const ts = newTestScheduler();
    const seen: Array<[string, string | undefined, string]> = [];
    ts.run(({ hot, flush }) => {
      const registry = new Registry().registerTool({ name: 'guarded', handler: () => 'ran' });
      const server = createServer({
        registry,
        scheduler: ts,
        authorizer: allowlist([], { ask: { guarded: 'Run guarded?' } }),
        middleware: [recording(seen)],
      });
      const answer = () => elicitationAnswer(rec.elicitationId(), 'approve');
      const inbound = hot('-ab-c', { a: initialize('i'), b: toolCall(1, 'guarded'), c: answer });
      const rec = record(server, 'c1', inbound, ts);
      const seenWhileParked: unknown[] = [];
      ts.schedule(() => seenWhileParked.push(...seen), 3);
      flush();
      expect(seenWhileParked).toEqual([]);
      expect(rec.repliesTo(1).map((f) => [f.frame, f.message])).toEqual([[4, textResult(1, 'ran')]]);
    });
    expect(seen).toEqual([['tools/call', 'guarded', 'result']]);
  });
});

describe('what a stage sees and can do', () => {
  test('the call: method, ids, who is calling (peer from connect), name, arguments, tool, and the handler\'s own context', () => {
    const ts = newTestScheduler();
    const calls: AdmittedCall[] = [];
    const handlerContexts: CallContext[] = [];
    ts.run(({ hot, flush }) => {
      const registry = surfaces(zero(), handlerContexts);
      const server = createServer({ registry, scheduler: ts, middleware: [() => (call) => (calls.push(call), (r$) => r$)] });
      const inbound = hot('-a', { a: toolCall(9, 'echo', { text: 'hi' }) });
      server.connect('c1', inbound, { transport: 'memory', peer: 'addr:10.0.0.7' }).subscribe();
      flush();
    });
    const [call] = calls;
    expect(call).toMatchObject({
      method: 'tools/call',
      requestId: 9,
      connId: 'c1',
      transport: 'memory',
      peer: 'addr:10.0.0.7',
      name: 'echo',
      uri: undefined,
      arguments: { text: 'hi' },
      params: { name: 'echo', arguments: { text: 'hi' } },
    });
    expect(call!.tool?.name).toBe('echo');
    expect(call!.context).toBe(handlerContexts[0]);
    expect(call!.context.signal.aborted).toBe(false);
  });

  test('a stage that answers by itself: the handler never runs, and the answer carries this request\'s id', () => {
    const ts = newTestScheduler();
    const counts = zero();
    const kept = { result: { content: [{ type: 'text', text: 'from a stage' }] } };
    ts.run(({ hot, expectObservable }) => {
      const server = createServer({ registry: surfaces(counts), scheduler: ts, middleware: [() => () => () => of(kept)] });
      const inbound = hot('-ab', { a: toolCall(1, 'echo', { text: 'x' }), b: toolCall('two', 'echo', { text: 'x' }) });
      expectObservable(server.connect('c1', inbound)).toBe('-ab', {
        a: textResult(1, 'from a stage'),
        b: textResult('two', 'from a stage'),
      });
    });
    expect(counts.tool).toBe(0);
  });

  test('redaction with map: the reply is rewritten on its way out (tools and reads alike)', () => {
    const ts = newTestScheduler();
    const redact: Middleware = () => () =>
      map((reply) => (reply.result === undefined ? reply : { result: JSON.parse(JSON.stringify(reply.result).replace(/password=\w+/g, 'password=***')) }));
    ts.run(({ hot, expectObservable }) => {
      const registry = surfaces(zero()).registerResource({ uri: 'mem://cfg', name: 'cfg', read: () => 'password=swordfish' });
      const server = createServer({ registry, scheduler: ts, middleware: [redact] });
      const inbound = hot('-ab', { a: toolCall(1, 'secret'), b: readResource(2, 'mem://cfg') });
      expectObservable(server.connect('c1', inbound)).toBe('-ab', {
        a: textResult(1, 'password=***'),
        b: { jsonrpc: '2.0', id: 2, result: { contents: [{ uri: 'mem://cfg', text: 'password=***' }] } },
      });
    });
  });

  test('a stage may answer a tools/call with a JSON-RPC error', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = createServer({
        registry: surfaces(zero()),
        scheduler: ts,
        middleware: [() => () => () => of({ error: { code: -32001, message: 'quota exceeded' } })],
      });
      expectObservable(server.connect('c1', hot('-a', { a: toolCall(1, 'echo') }))).toBe('-a', {
        a: { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'quota exceeded' } },
      });
    });
  });

  test('call.refuse(reason, detail): an isError result for tools/call, -32603 with data.error for a read', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const refuse: Middleware = () => (call) => () => of(call.refuse('closed_for_lunch', call.method === 'tools/call' ? 'back at 2' : undefined));
      const server = createServer({ registry: surfaces(zero()), scheduler: ts, middleware: [refuse] });
      const inbound = hot('-ab', { a: toolCall(1, 'echo'), b: readResource(2, 'mem://a') });
      expectObservable(server.connect('c1', inbound)).toBe('-ab', {
        a: textResult(1, 'Error: closed_for_lunch: back at 2', true),
        b: {
          jsonrpc: '2.0',
          id: 2,
          error: { code: -32603, message: 'MCP callback failed', data: { error: 'closed_for_lunch', method: 'resources/read' } },
        },
      });
    });
  });

  test('progress an Observable handler emits still goes out, and only its result reaches the stages', () => {
    const ts = newTestScheduler();
    const seen: unknown[] = [];
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool({
        name: 'countdown',
        handler: () => concat(of(progressUpdate(1, 2)), timer(3, ts).pipe(map(() => 'done'))),
      });
      const server = createServer({ registry, scheduler: ts, middleware: [() => () => tap((reply) => seen.push(reply))] });
      const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'countdown', _meta: { progressToken: 'p' } } };
      expectObservable(server.connect('c1', hot('-a', { a: call }), { transport: 'memory' })).toBe('-p 2ms r', {
        p: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2 } },
        r: textResult(1, 'done'),
      });
    });
    expect(seen).toEqual([{ result: { content: [{ type: 'text', text: 'done' }] } }]);
  });
});

describe('the worker keeps the contract around the stages', () => {
  const crashed = (id: unknown) => textResult(id, 'Error: callback_crashed', true);

  function serverWith(middleware: Middleware, options: Omit<ServerOptions, 'registry' | 'middleware'> = {}) {
    const counts = zero();
    const errors: unknown[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (obj: unknown) => errors.push(obj) };
    const server = createServer({ registry: surfaces(counts), middleware: [middleware], logger, ...options });
    return { server, counts, errors };
  }

  test('a stage that emits twice: only the first reply is sent', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const twice: Middleware = () => () => (reply$) => concat(reply$, of({ result: { content: [] } }));
      const { server } = serverWith(twice, { scheduler: ts });
      expectObservable(server.connect('c1', hot('-a', { a: toolCall(1, 'echo', { text: 'x' }) }))).toBe('-a', { a: textResult(1, 'echo x') });
    });
  });

  test.each([
    ['errors', (() => () => () => throwError(() => new Error('stage broke'))) as Middleware],
    ['completes empty', (() => () => () => EMPTY) as Middleware],
    ['emits something that is not a reply', (() => () => () => of({ content: [] })) as unknown as Middleware],
    ['throws while building its operator', (() => () => {
      throw new Error('no operator');
    }) as Middleware],
  ])('a stage that %s: callback_crashed (an isError result; -32603 for a read), logged', (_what, middleware) => {
    const ts = newTestScheduler();
    let logged: unknown[] = [];
    ts.run(({ hot, expectObservable }) => {
      const { server, errors } = serverWith(middleware, { scheduler: ts });
      logged = errors;
      const inbound = hot('-ab', { a: toolCall(1, 'echo'), b: readResource(2, 'mem://a') });
      expectObservable(server.connect('c1', inbound)).toBe('-ab', {
        a: crashed(1),
        b: {
          jsonrpc: '2.0',
          id: 2,
          error: { code: -32603, message: 'MCP callback failed', data: { error: 'callback_crashed', method: 'resources/read' } },
        },
      });
    });
    expect(logged).toHaveLength(2);
  });

  test('a stage that never answers: callback_timeout at the timeout frame, and the stage is unsubscribed then', () => {
    const ts = newTestScheduler();
    const ended: number[] = [];
    ts.run(({ hot, expectObservable }) => {
      const silent: Middleware = () => () => () => NEVER.pipe(finalize(() => ended.push(ts.now())));
      const { server } = serverWith(silent, { scheduler: ts, callbackTimeoutMs: 50 });
      expectObservable(server.connect('c1', hot('-a', { a: toolCall(1, 'echo') }))).toBe('- 50ms t', {
        t: textResult(1, 'Error: callback_timeout', true),
      });
    });
    expect(ended).toEqual([51]);
  });

  test('notifications/cancelled reaches the handler through a stage: its signal aborts, no reply, the stage finalizes', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const finalized: number[] = [];
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool(sleepTool('slow', 30, ts, log));
      const timing: Middleware = ({ scheduler }) => () => (reply$: Observable<unknown>) =>
        reply$.pipe(finalize(() => finalized.push(scheduler.now()))) as never;
      const server = createServer({ registry, scheduler: ts, middleware: [timing] });
      const inbound = hot('-a 9ms x', { a: toolCall(1, 'slow'), x: cancelled(1) });
      expectObservable(server.connect('c1', inbound)).toBe('');
    });
    expect(log).toEqual({ started: [1], finished: [], aborted: [11] });
    expect(finalized).toEqual([11]);
  });

  test('a stage holding a call holds its in-flight slot, and gives it back when it answers', () => {
    const ts = newTestScheduler();
    const inFlight: number[] = [];
    ts.run(({ hot, expectObservable }) => {
      const late: Middleware = ({ scheduler }) => () => (reply$) => timer(20, scheduler).pipe(switchMap(() => reply$));
      const { server } = serverWith(late, { scheduler: ts, maxInFlight: 1 });
      ts.schedule(() => inFlight.push(server.stats().inFlight), 10);
      ts.schedule(() => inFlight.push(server.stats().inFlight), 30);
      const inbound = hot('-ab', { a: toolCall(1, 'echo', { text: 'x' }), b: toolCall(2, 'echo', { text: 'y' }) });
      expectObservable(server.connect('c1', inbound)).toBe('--b 18ms a', {
        a: textResult(1, 'echo x'),
        b: textResult(2, 'Error: server_busy', true),
      });
    });
    expect(inFlight).toEqual([1, 0]);
  });
});
