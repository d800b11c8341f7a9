/**
 * callbackTimeoutMs on a virtual clock: a worker slower than the timeout is
 * answered with callback_timeout at exactly the timeout frame (a tool result
 * for tools/call, -32603 for a read method), its AbortSignal fires in that
 * frame, and its in-flight slot is free again by the time the reply leaves.
 */
import { map, tap, timer } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createServer, Registry } from '../../lib/index.js';
import { newTestScheduler, newToolLog, readResource, sleepTool, textResult, toolCall } from './harness.js';

const TIMEOUT = 100;

describe('callbackTimeoutMs', () => {
  test('a tools/call slower than the timeout is "Error: callback_timeout" at the timeout frame, and its signal aborts then', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool(sleepTool('slow', TIMEOUT + 50, ts, log));
      const server = createServer({ registry, scheduler: ts, callbackTimeoutMs: TIMEOUT });
      const inbound = hot('-a', { a: toolCall(1, 'slow') });
      expectObservable(server.connect('c1', inbound, { transport: 'memory' })).toBe('- 100ms r', {
        r: textResult(1, 'Error: callback_timeout', true),
      });
    });
    expect(log).toEqual({ started: [1], aborted: [1 + TIMEOUT], finished: [] });
  });

  test('a handler one frame under the timeout succeeds and is not aborted', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool(sleepTool('quick', TIMEOUT - 1, ts, log));
      const server = createServer({ registry, scheduler: ts, callbackTimeoutMs: TIMEOUT });
      const inbound = hot('-a', { a: toolCall(7, 'quick') });
      expectObservable(server.connect('c1', inbound, { transport: 'memory' })).toBe('- 99ms r', { r: textResult(7, 'done') });
    });
    expect(log).toEqual({ started: [1], aborted: [], finished: [TIMEOUT] });
  });

  test('a resources/read slower than the timeout is -32603 with data {error:"callback_timeout"}', () => {
    const ts = newTestScheduler();
    const aborted: number[] = [];
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerResource({
        uri: 'mem://slow',
        name: 'slow',
        read: (_uri, ctx) => {
          ctx.signal.addEventListener('abort', () => aborted.push(ts.now()));
          return timer(TIMEOUT * 2, ts).pipe(map(() => 'late'));
        },
      });
      const server = createServer({ registry, scheduler: ts, callbackTimeoutMs: TIMEOUT });
      const inbound = hot('--a', { a: readResource('r1', 'mem://slow') });
      expectObservable(server.connect('c1', inbound, { transport: 'memory' })).toBe('-- 100ms r', {
        r: {
          jsonrpc: '2.0',
          id: 'r1',
          error: { code: -32603, message: 'MCP callback failed', data: { error: 'callback_timeout', method: 'resources/read' } },
        },
      });
    });
    expect(aborted).toEqual([2 + TIMEOUT]);
  });

  test('a resources/read under the timeout answers its contents', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerResource({
        uri: 'mem://quick',
        name: 'quick',
        read: () => timer(TIMEOUT - 1, ts).pipe(map(() => 'hello')),
      });
      const server = createServer({ registry, scheduler: ts, callbackTimeoutMs: TIMEOUT });
      const inbound = hot('-a', { a: readResource(2, 'mem://quick') });
      expectObservable(server.connect('c1', inbound, { transport: 'memory' })).toBe('- 99ms r', {
        r: { jsonrpc: '2.0', id: 2, result: { contents: [{ uri: 'mem://quick', text: 'hello' }] } },
      });
    });
  });

  test('the in-flight slot is held until the timeout frame and free when the timeout reply leaves', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const inFlight: Array<[frame: number, count: number]> = [];
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool(sleepTool('slow', TIMEOUT * 3, ts, log));
      const server = createServer({ registry, scheduler: ts, callbackTimeoutMs: TIMEOUT, maxInFlight: 2, maxInFlightPerConnection: 2 });
      const sample = () => inFlight.push([ts.now(), server.stats().inFlight]);
      const inbound = hot('-ab', { a: toolCall(1, 'slow'), b: toolCall(2, 'slow') });
      ts.schedule(sample, 0);
      ts.schedule(sample, 3);
      ts.schedule(sample, TIMEOUT);
      const outbound = server.connect('c1', inbound, { transport: 'memory' }).pipe(tap(sample));
      expectObservable(outbound).toBe('- 100ms xy', {
        x: textResult(1, 'Error: callback_timeout', true),
        y: textResult(2, 'Error: callback_timeout', true),
      });
    });
    // frame 101: the first call's reply, its slot already free; frame 102: the second's.
    expect(inFlight).toEqual([
      [0, 0],
      [3, 2],
      [TIMEOUT, 2],
      [TIMEOUT + 1, 1],
      [TIMEOUT + 2, 0],
    ]);
    expect(log.aborted).toEqual([TIMEOUT + 1, TIMEOUT + 2]);
  });

  test('a slot freed by a timeout is usable in the same frame: the next call is admitted, not busy', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool(sleepTool('slow', TIMEOUT * 3, ts, log));
      registry.registerTool(sleepTool('quick', 1, ts, newToolLog()));
      const server = createServer({ registry, scheduler: ts, callbackTimeoutMs: TIMEOUT, maxInFlight: 1 });
      // b arrives while the only slot is taken; c arrives one frame after the timeout freed it.
      const inbound = hot('-ab 99ms c', { a: toolCall(1, 'slow'), b: toolCall(2, 'quick'), c: toolCall(3, 'quick') });
      expectObservable(server.connect('c1', inbound, { transport: 'memory' })).toBe('--b 98ms t-d', {
        b: textResult(2, 'Error: server_busy', true),
        t: textResult(1, 'Error: callback_timeout', true),
        d: textResult(3, 'done'),
      });
    });
  });
});
