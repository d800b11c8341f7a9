/**
 * An extension's method on a virtual clock, through the same worker as a
 * built-in read: slower than callbackTimeoutMs it is -32603
 * callback_timeout at exactly the timeout frame with its signal aborted
 * then; cancelled by notifications/cancelled it gets no reply and its
 * signal aborts in the cancel frame.
 */
import { filter, map, timer } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createServer, Registry } from '../../lib/index.js';
import { modernRpc } from '../era/modern-helpers.js';
import { NOTES_ID, notesExtension } from '../extensions/notes-extension.js';
import { cancelled, initialize, newTestScheduler } from './harness.js';

const TIMEOUT = 100;
const declaring = { extensions: { [NOTES_ID]: {} } };

describe('an extension method in a worker', () => {
  test('slower than the timeout: callback_timeout at the timeout frame, its signal aborted then (modern)', () => {
    const ts = newTestScheduler();
    const aborted: number[] = [];
    ts.run(({ hot, expectObservable }) => {
      const slow = notesExtension([], (_folder, signal) => {
        signal.addEventListener('abort', () => aborted.push(ts.now()));
        return timer(TIMEOUT * 2, ts).pipe(map(() => ({ count: 0 })));
      });
      const server = createServer({ registry: new Registry(), extensions: [slow], scheduler: ts, callbackTimeoutMs: TIMEOUT });
      const inbound = hot('-a', { a: modernRpc(1, 'notes/count', {}, { capabilities: declaring }) });
      expectObservable(server.connect('c1', inbound, { transport: 'memory' })).toBe('- 100ms r', {
        r: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'MCP callback failed', data: { error: 'callback_timeout', method: 'notes/count' } } },
      });
    });
    expect(aborted).toEqual([1 + TIMEOUT]);
  });

  test('one frame under the timeout: answered, not aborted', () => {
    const ts = newTestScheduler();
    const aborted: number[] = [];
    ts.run(({ hot, expectObservable }) => {
      const quick = notesExtension([], (_folder, signal) => {
        signal.addEventListener('abort', () => aborted.push(ts.now()));
        return timer(TIMEOUT - 1, ts).pipe(map(() => ({ count: 3 })));
      });
      const server = createServer({ registry: new Registry(), extensions: [quick], scheduler: ts, callbackTimeoutMs: TIMEOUT });
      const inbound = hot('-a', { a: modernRpc(1, 'notes/count', {}, { capabilities: declaring }) });
      const replies = server.connect('c1', inbound, { transport: 'memory' }).pipe(map((m) => (m as { result: { count: number } }).result.count));
      expectObservable(replies).toBe('- 99ms r', { r: 3 });
    });
    expect(aborted).toEqual([]);
  });

  test('cancelled by notifications/cancelled: no reply, its signal aborts in the cancel frame (legacy)', () => {
    const ts = newTestScheduler();
    const aborted: number[] = [];
    ts.run(({ hot, expectObservable }) => {
      const slow = notesExtension([], (_folder, signal) => {
        signal.addEventListener('abort', () => aborted.push(ts.now()));
        return timer(50, ts).pipe(map(() => ({ count: 0 })));
      });
      const server = createServer({ registry: new Registry(), extensions: [slow], scheduler: ts, callbackTimeoutMs: TIMEOUT });
      const inbound = hot('-i-c 9ms x', {
        i: initialize('init', declaring),
        c: { jsonrpc: '2.0', id: 1, method: 'notes/count', params: {} },
        x: cancelled(1),
      });
      const replies = server.connect('c1', inbound, { transport: 'memory' }).pipe(filter((m) => (m as { id?: unknown }).id !== 'init'));
      expectObservable(replies).toBe('');
    });
    expect(aborted).toEqual([13]);
  });
});
