/**
 * An `async` handler, written the usual TypeScript way, on the test clock:
 * it awaits other async functions and `ctx.sleep` on the server's clock, and
 * the callback timeout is exact to the millisecond (999 ms of work in a
 * 1000 ms budget completes, 1000 ms is `callback_timeout`). Its progress and
 * log lines arrive at the virtual times they were sent. Both eras.
 */
import { describe, expect, test } from 'vitest';
import { Registry, type CallContext } from '../../lib/index.js';
import { CallAbandonedError, createTestServer, textOf } from '../../testing/index.js';

/** A step of the work: another async function, waiting on the server's clock through the context. */
async function fetchPart(part: number, ms: number, ctx: CallContext): Promise<string> {
  await ctx.sleep(ms);
  return `part ${part}`;
}

function registry() {
  return new Registry().registerTool({
    name: 'report',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
    handler: async ({ ms }, ctx) => {
      ctx.progress(0, 2, 'starting');
      const first = await fetchPart(1, ms / 2, ctx);
      ctx.progress(1, 2);
      ctx.log('info', { first });
      const second = await fetchPart(2, ms - ms / 2, ctx);
      ctx.progress(2, 2);
      return `${first}, ${second} at ${ctx.scheduler.now()} ms`;
    },
  });
}

describe.each(['legacy', 'modern'] as const)('an async tool with a timeout (%s)', (era) => {
  test('999 ms of awaited work in a 1000 ms budget completes, at 999 virtual ms, with its progress and log lines timed', async () => {
    const { clock, client } = createTestServer({ registry: registry(), callbackTimeoutMs: 1000 });
    const c = await client(era, { logLevel: 'info' });
    const call = c.callTool('report', { ms: 999 });
    await clock.advance(998);
    expect(call.progress.map((p) => [p.progress, p.at])).toEqual([[0, 0], [1, 499.5]]);
    await clock.advance(1);
    const result = await call;
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe('part 1, part 2 at 999 ms');
    expect(call.progress).toEqual([
      { progress: 0, total: 2, message: 'starting', at: 0 },
      { progress: 1, total: 2, at: 499.5 },
      { progress: 2, total: 2, at: 999 },
    ]);
    expect(call.logs).toEqual([{ level: 'info', data: { first: 'part 1' }, at: 499.5 }]);
  });

  test('1000 ms of work in the same budget is callback_timeout at exactly 1000 ms, and the handler stops at its next await', async () => {
    const { clock, client } = createTestServer({ registry: registry(), callbackTimeoutMs: 1000 });
    const c = await client(era);
    const call = c.callTool('report', { ms: 1000 });
    await clock.advance(999);
    let settled = false;
    void call.then(() => (settled = true));
    await clock.settle();
    expect(settled).toBe(false);
    await clock.advance(1);
    const result = await call;
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: callback_timeout' }] });
    expect(call.progress.map((p) => p.progress)).toEqual([0, 1]);
    expect(clock.pending).toBe(0);
  });

  test('runUntil measures a call: it resolves with the result, the clock stopped where the call ended', async () => {
    const { clock, client } = createTestServer({ registry: registry(), callbackTimeoutMs: 10_000 });
    const c = await client(era);
    expect(textOf(await clock.runUntil(c.callTool('report', { ms: 250 })))).toBe('part 1, part 2 at 250 ms');
    expect(clock.now()).toBe(250);
  });

  test('a cancelled call aborts ctx.sleep: the rest of the handler never runs, and the call rejects on the client', async () => {
    const seen: string[] = [];
    const registry = new Registry().registerTool({
      name: 'wait',
      handler: async (_args, ctx) => {
        try {
          await ctx.sleep(500);
          seen.push('after the sleep');
        } catch (error) {
          seen.push(`aborted at ${ctx.scheduler.now()}: ${ctx.signal.aborted}`);
          throw error;
        }
        return 'done';
      },
    });
    const { clock, client, server } = createTestServer({ registry });
    const c = await client(era);
    const call = c.callTool('wait');
    await clock.advance(100);
    call.cancel('changed my mind');
    await expect(call).rejects.toBeInstanceOf(CallAbandonedError);
    await clock.runAll();
    expect(seen).toEqual(['aborted at 100: true']);
    expect(server.stats().inFlight).toBe(0);
  });
});
