/**
 * rateLimit on a virtual clock: a caller (the peer) gets a burst of `calls`,
 * then one more each perMs / calls; a call past its budget is answered
 * rate_limited in its own frame and its handler never runs; connections of
 * one peer share a budget, another peer has its own; remembered callers are
 * bounded.
 */
import { describe, expect, test } from 'vitest';
import { createServer, rateLimit, Registry, type RateLimitOptions } from '../../lib/index.js';
import { connectMarbles, newTestScheduler, readResource, textResult, toolCall } from './harness.js';
import type { TestScheduler } from 'rxjs/testing';

const LIMITED = (id: unknown) => textResult(id, 'Error: rate_limited', true);

function limitedServer(ts: TestScheduler, options: RateLimitOptions, runs: { count: number }) {
  const registry = new Registry()
    .registerTool({
      name: 'work',
      handler: () => {
        runs.count += 1;
        return 'ok';
      },
    })
    .registerResource({ uri: 'mem://a', name: 'a', read: () => 'A' });
  return createServer({ registry, scheduler: ts, middleware: [rateLimit(options)] });
}

describe('rateLimit', () => {
  test('a burst of `calls`, the next refused; a token back every perMs / calls', () => {
    const ts = newTestScheduler();
    const runs = { count: 0 };
    ts.run(({ hot, expectObservable }) => {
      const server = limitedServer(ts, { perCaller: { calls: 2, perMs: 100 } }, runs);
      // Three at frame 1: two pass, one is refused. At frame 26 half a token is back: refused.
      // At frame 51, 50 ms after the burst, one whole token is back.
      const frames = '-(abc) 20ms d 24ms e';
      const inbound = hot(frames, {
        a: toolCall(1, 'work'),
        b: toolCall(2, 'work'),
        c: toolCall(3, 'work'),
        d: toolCall(4, 'work'),
        e: toolCall(5, 'work'),
      });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe(frames, {
        a: textResult(1, 'ok'),
        b: textResult(2, 'ok'),
        c: LIMITED(3),
        d: LIMITED(4),
        e: textResult(5, 'ok'),
      });
    });
    expect(runs.count).toBe(3);
  });

  test('a refused call takes no token: refusals do not push the next allowed call further away', () => {
    const ts = newTestScheduler();
    const runs = { count: 0 };
    ts.run(({ hot, expectObservable }) => {
      const server = limitedServer(ts, { perCaller: { calls: 1, perMs: 8 } }, runs);
      // One token per 8 ms. a at 1 takes it; b..e at 2..5 are refused; f at 9 finds it back.
      const inbound = hot('-abcde 3ms f', {
        a: toolCall(1, 'work'),
        b: toolCall(2, 'work'),
        c: toolCall(3, 'work'),
        d: toolCall(4, 'work'),
        e: toolCall(5, 'work'),
        f: toolCall(6, 'work'),
      });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('-abcde 3ms f', {
        a: textResult(1, 'ok'),
        b: LIMITED(2),
        c: LIMITED(3),
        d: LIMITED(4),
        e: LIMITED(5),
        f: textResult(6, 'ok'),
      });
    });
    expect(runs.count).toBe(2);
  });

  test('two connections of one peer share its budget; another peer has its own', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = limitedServer(ts, { perCaller: { calls: 1, perMs: 1000 } }, { count: 0 });
      const first = hot('-a', { a: toolCall(1, 'work') });
      const sibling = hot('--a', { a: toolCall(1, 'work') });
      const stranger = hot('--a', { a: toolCall(1, 'work') });
      expectObservable(server.connect('c1', first, { transport: 'memory', peer: 'addr:10.0.0.1' })).toBe('-a', { a: textResult(1, 'ok') });
      expectObservable(server.connect('c2', sibling, { transport: 'memory', peer: 'addr:10.0.0.1' })).toBe('--a', { a: LIMITED(1) });
      expectObservable(server.connect('c3', stranger, { transport: 'memory', peer: 'addr:10.0.0.2' })).toBe('--a', { a: textResult(1, 'ok') });
    });
  });

  test('a read method past the budget is -32603 with data.error "rate_limited"', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = limitedServer(ts, { perCaller: { calls: 1, perMs: 1000 } }, { count: 0 });
      const inbound = hot('-ab', { a: readResource(1, 'mem://a'), b: readResource(2, 'mem://a') });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('-ab', {
        a: { jsonrpc: '2.0', id: 1, result: { contents: [{ uri: 'mem://a', text: 'A' }] } },
        b: {
          jsonrpc: '2.0',
          id: 2,
          error: { code: -32603, message: 'MCP callback failed', data: { error: 'rate_limited', method: 'resources/read' } },
        },
      });
    });
  });

  test('callers remembered are bounded: past maxCallers the least recently seen is forgotten (and starts full)', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = limitedServer(ts, { perCaller: { calls: 1, perMs: 1000 }, maxCallers: 2 }, { count: 0 });
      const peer = (name: string, marbles: string, expected: string, values: Record<string, unknown>) =>
        expectObservable(server.connect(name, hot(marbles, { a: toolCall(1, 'work'), b: toolCall(2, 'work') }), { peer: name })).toBe(
          expected,
          values,
        );
      // p1 spends its token at 1, p2 at 2: p1 is limited at 3. p3 at 4 pushes the table past 2 callers,
      // and the least recently seen (p2, since p1 was seen at 3) is forgotten: p2 passes again at 5.
      peer('p1', '-a-b', '-a-b', { a: textResult(1, 'ok'), b: LIMITED(2) });
      peer('p2', '--a--b', '--a--b', { a: textResult(1, 'ok'), b: textResult(2, 'ok') });
      peer('p3', '----a', '----a', { a: textResult(1, 'ok') });
    });
  });

  test('two servers built from one rateLimit value keep separate budgets', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const limit = rateLimit({ perCaller: { calls: 1, perMs: 1000 } });
      const registry = new Registry().registerTool({ name: 'work', handler: () => 'ok' });
      const a = createServer({ registry, scheduler: ts, middleware: [limit] });
      const b = createServer({ registry, scheduler: ts, middleware: [limit] });
      expectObservable(a.connect('c', hot('-a', { a: toolCall(1, 'work') }))).toBe('-a', { a: textResult(1, 'ok') });
      expectObservable(b.connect('c', hot('--a', { a: toolCall(1, 'work') }))).toBe('--a', { a: textResult(1, 'ok') });
    });
  });
});
