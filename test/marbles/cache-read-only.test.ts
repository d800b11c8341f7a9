/**
 * cacheReadOnly on a virtual clock: a readOnlyHint tool's successful result
 * is served again, without running the handler, until ttlMs after it was
 * stored; the key is the caller, the tool and the arguments in canonical
 * JSON; other tools, failures and oversized results are never kept; entries
 * are bounded; and a hit is a copy no later stage can spoil.
 */
import { map, tap, timer } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, test } from 'vitest';
import { cacheReadOnly, createServer, Registry, ToolError, type CacheReadOnlyOptions, type Middleware } from '../../lib/index.js';
import { connectMarbles, newTestScheduler, textResult, toolCall } from './harness.js';

interface Runs {
  lookup: number;
  write: number;
}

function cachedServer(ts: TestScheduler, options: CacheReadOnlyOptions, runs: Runs, outer: Middleware[] = []) {
  const registry = new Registry()
    .registerTool({
      name: 'lookup',
      annotations: { readOnlyHint: true },
      handler: (args) => {
        runs.lookup += 1;
        if (args.fail === true) throw new ToolError('no such thing');
        const answer = `${String(args.q)}#${runs.lookup}`;
        return typeof args.ms === 'number' ? timer(args.ms, ts).pipe(map(() => answer)) : answer;
      },
    })
    .registerTool({
      name: 'write',
      handler: () => {
        runs.write += 1;
        return `wrote #${runs.write}`;
      },
    });
  return createServer({ registry, scheduler: ts, middleware: [...outer, cacheReadOnly(options)] });
}

const fresh = (): Runs => ({ lookup: 0, write: 0 });

describe('cacheReadOnly', () => {
  test('served from the cache until ttlMs after it was stored, whatever the key order of the arguments', () => {
    const ts = newTestScheduler();
    const runs = fresh();
    ts.run(({ hot, expectObservable }) => {
      const server = cachedServer(ts, { ttlMs: 100 }, runs);
      // Stored at frame 1, so it expires at 101: frames 2 and 100 hit, 101 misses and stores again.
      const frames = '-ab 97ms cd';
      const inbound = hot(frames, {
        a: toolCall(1, 'lookup', { q: 'x', n: 1 }),
        b: toolCall(2, 'lookup', { n: 1, q: 'x' }),
        c: toolCall(3, 'lookup', { q: 'x', n: 1 }),
        d: toolCall(4, 'lookup', { q: 'x', n: 1 }),
      });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe(frames, {
        a: textResult(1, 'x#1'),
        b: textResult(2, 'x#1'),
        c: textResult(3, 'x#1'),
        d: textResult(4, 'x#2'),
      });
    });
    expect(runs.lookup).toBe(2);
  });

  test('other arguments, tools without readOnlyHint, and isError results are never served from it', () => {
    const ts = newTestScheduler();
    const runs = fresh();
    ts.run(({ hot, expectObservable }) => {
      const server = cachedServer(ts, { ttlMs: 100 }, runs);
      const frames = '-abcdef';
      const inbound = hot(frames, {
        a: toolCall(1, 'lookup', { q: 'x' }),
        b: toolCall(2, 'lookup', { q: 'y' }),
        c: toolCall(3, 'write'),
        d: toolCall(4, 'write'),
        e: toolCall(5, 'lookup', { q: 'z', fail: true }),
        f: toolCall(6, 'lookup', { q: 'z', fail: true }),
      });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe(frames, {
        a: textResult(1, 'x#1'),
        b: textResult(2, 'y#2'),
        c: textResult(3, 'wrote #1'),
        d: textResult(4, 'wrote #2'),
        e: textResult(5, 'no such thing', true),
        f: textResult(6, 'no such thing', true),
      });
    });
    expect(runs).toEqual({ lookup: 4, write: 2 });
  });

  test('an asynchronous result is stored when it arrives: a call meanwhile runs the handler, one after hits at once', () => {
    const ts = newTestScheduler();
    const runs = fresh();
    ts.run(({ hot, expectObservable }) => {
      const server = cachedServer(ts, { ttlMs: 100 }, runs);
      const args = { q: 'slow', ms: 10 };
      const inbound = hot('-a---b 10ms c', { a: toolCall(1, 'lookup', args), b: toolCall(2, 'lookup', args), c: toolCall(3, 'lookup', args) });
      // a answers at 11 and is stored; b (at 5) missed and answers at 15 (stored again); c at 16 hits.
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('- 10ms a---b c', {
        a: textResult(1, 'slow#1'),
        b: textResult(2, 'slow#2'),
        c: textResult(3, 'slow#2'),
      });
    });
    expect(runs.lookup).toBe(2);
  });

  test('keyed by caller: another peer does not get this peer\'s result, unless shareAcrossCallers', () => {
    for (const shareAcrossCallers of [false, true]) {
      const ts = newTestScheduler();
      const runs = fresh();
      ts.run(({ hot, expectObservable }) => {
        const server = cachedServer(ts, { ttlMs: 100, shareAcrossCallers }, runs);
        const call = { a: toolCall(1, 'lookup', { q: 'me' }) };
        expectObservable(server.connect('c1', hot('-a', call), { peer: 'alice' })).toBe('-a', { a: textResult(1, 'me#1') });
        expectObservable(server.connect('c2', hot('--a', call), { peer: 'bob' })).toBe('--a', {
          a: textResult(1, shareAcrossCallers ? 'me#1' : 'me#2'),
        });
        expectObservable(server.connect('c3', hot('---a', call), { peer: 'alice' })).toBe('---a', { a: textResult(1, 'me#1') });
      });
    }
  });

  test('bounded: past maxEntries the oldest entry goes; a result over maxEntryBytes is not kept', () => {
    const ts = newTestScheduler();
    const runs = fresh();
    ts.run(({ hot, expectObservable }) => {
      const server = cachedServer(ts, { ttlMs: 1000, maxEntries: 2, maxEntryBytes: 200 }, runs);
      const big = 'b'.repeat(200);
      const frames = '-abcdef';
      const inbound = hot(frames, {
        a: toolCall(1, 'lookup', { q: 'p' }),
        b: toolCall(2, 'lookup', { q: 'q' }),
        c: toolCall(3, 'lookup', { q: 'r' }), // a third entry: p, the oldest, goes
        d: toolCall(4, 'lookup', { q: 'p' }), // a miss, stored again (q goes)
        e: toolCall(5, 'lookup', { q: big }),
        f: toolCall(6, 'lookup', { q: big }), // too big to have been kept
      });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe(frames, {
        a: textResult(1, 'p#1'),
        b: textResult(2, 'q#2'),
        c: textResult(3, 'r#3'),
        d: textResult(4, 'p#4'),
        e: textResult(5, `${big}#5`),
        f: textResult(6, `${big}#6`),
      });
    });
    expect(runs.lookup).toBe(6);
  });

  test('a hit is a fresh copy: a stage outside the cache that changes a reply in place cannot spoil the entry', () => {
    const ts = newTestScheduler();
    const runs = fresh();
    const vandal: Middleware = () => () =>
      tap((reply) => {
        (reply.result!.content as unknown[]).push({ type: 'text', text: 'scribble' });
      });
    ts.run(({ hot, expectObservable }) => {
      const server = cachedServer(ts, { ttlMs: 100 }, runs, [vandal]);
      const scribbled = (id: number) => ({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: 'x#1' }, { type: 'text', text: 'scribble' }] },
      });
      const inbound = hot('-ab', { a: toolCall(1, 'lookup', { q: 'x' }), b: toolCall(2, 'lookup', { q: 'x' }) });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('-ab', { a: scribbled(1), b: scribbled(2) });
    });
    expect(runs.lookup).toBe(1);
  });
});
