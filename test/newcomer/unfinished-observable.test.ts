/**
 * Issue 21.5: a handler's Observable that emits but never completes (a
 * BehaviorSubject, interval) waits for callbackTimeoutMs, and its timeout
 * says why: the log names the tool and that its Observable emitted but never
 * completed. On the server's virtual clock: no real time passes.
 */
import { BehaviorSubject, interval, NEVER, timer, map, take } from 'rxjs';
import { expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { makeServer, rpc, settle, textOf } from '../contract/helpers.js';
import { recordingLogger } from '../helpers/recording-logger.js';

function serverWith(handler: (scheduler: ReturnType<typeof makeServer>['virtual']) => unknown) {
  const log = recordingLogger();
  const registry = new Registry();
  const server = makeServer({ registry, logger: log.logger, callbackTimeoutMs: 100 });
  registry.registerTool({ name: 'status', handler: () => handler(server.virtual) as never });
  return { server, log };
}

async function call(server: ReturnType<typeof makeServer>): Promise<string> {
  const reply = server.handleMessage(rpc(1, 'tools/call', { name: 'status' }));
  await settle();
  server.virtual.flush();
  return textOf(await reply);
}

test('a BehaviorSubject answer: callback_timeout, and the log says its Observable emitted but never completed', async () => {
  const { server, log } = serverWith(() => new BehaviorSubject('ready'));
  expect(await call(server)).toBe('Error: callback_timeout');
  expect(log.at('warn')).toContain(
    'tool status timed out because its Observable emitted 1 value but never completed: a tool answers with the last value once its Observable completes; end it (take(1), first(), takeUntil(...)) or return a Promise',
  );
  expect(log.lines.find((line) => line.msg.startsWith('tool status timed out'))?.fields).toEqual({ tool: 'status', values: 1, reason: 'callback_timeout' });
});

test('interval: the count is what it emitted before the timeout', async () => {
  const { server, log } = serverWith((scheduler) => interval(30, scheduler));
  expect(await call(server)).toBe('Error: callback_timeout');
  expect(log.at('warn').some((msg) => msg.startsWith('tool status timed out because its Observable emitted 3 values but never completed'))).toBe(true);
});

test('an Observable that completes in time, or that is merely slow and emitted nothing, is not blamed', async () => {
  const done = serverWith((scheduler) => interval(30, scheduler).pipe(take(2), map(String)));
  expect(await call(done.server)).toBe('1');
  const slow = serverWith((scheduler) => timer(500, scheduler));
  expect(await call(slow.server)).toBe('Error: callback_timeout');
  const silent = serverWith(() => NEVER);
  expect(await call(silent.server)).toBe('Error: callback_timeout');
  for (const { log } of [done, slow, silent]) expect(log.at('warn').filter((msg) => msg.includes('never completed'))).toEqual([]);
});
