/**
 * createTestServer: the server on the test clock, built from options or by
 * the application's own factory; the clock is what handlers see as
 * `ctx.scheduler`; a scheduler other than the clock is refused, since
 * nothing would then move the server's time; close() ends the clients and
 * the server; clients of both eras share one server.
 */
import { describe, expect, test } from 'vitest';
import { createServer, makePrincipal, Registry, type McpServer, type ServerOptions } from '../../lib/index.js';
import { CallAbandonedError, createTestServer, TestClock, textOf } from '../../testing/index.js';

/** An application's own factory, as a user has it: the registry and options it always uses. */
function buildMyServer(options: Pick<ServerOptions, 'scheduler'>): McpServer {
  const registry = new Registry().registerTool({
    name: 'who',
    handler: async (_args, ctx) => `${ctx.era} ${ctx.principal?.subject ?? 'anonymous'} at ${ctx.scheduler.now()}`,
  });
  return createServer({ registry, name: 'mine', serverVersion: '2.0.0', ...options });
}

describe('createTestServer', () => {
  test('from the application factory: handed the clock, whose time the handlers read', async () => {
    const { client, clock, server } = createTestServer((clock) => buildMyServer({ scheduler: clock }), { clock: { start: 5_000 } });
    expect(server.scheduler).toBe(clock);
    const legacy = await client('legacy', { principal: makePrincipal({ kind: 'local', subject: 'ada' }) });
    const modern = await client('modern');
    await clock.advance(20);
    expect(textOf(await legacy.callTool('who'))).toBe('legacy ada at 5020');
    expect(textOf(await modern.callTool('who'))).toBe('modern anonymous at 5020');
    expect(legacy.messages[0]).toMatchObject({ id: 1, result: { serverInfo: { name: 'mine', version: '2.0.0' } } });
  });

  test('a factory that ignores the clock, or a scheduler option, is refused with the fix', () => {
    expect(() => createTestServer(() => buildMyServer({}))).toThrow(/the server's scheduler is not the test clock; build it with `scheduler: clock`/);
    expect(() => createTestServer({ scheduler: new TestClock() } as never)).toThrow(/pass `clock`/);
  });

  test('a clock of your own is used as given', async () => {
    const clock = new TestClock();
    const t = createTestServer({ registry: new Registry(), clock });
    expect(t.clock).toBe(clock);
    expect(t.server.scheduler).toBe(clock);
  });

  test('close() ends its clients (their waiting calls reject) and the server', async () => {
    const registry = new Registry().registerTool({ name: 'hang', handler: (_args, ctx) => ctx.sleep(60_000).then(() => 'late') });
    const t = createTestServer({ registry });
    const c = await t.client('legacy');
    const call = c.callTool('hang');
    await t.clock.advance(10);
    expect(t.server.stats()).toMatchObject({ inFlight: 1, connections: 1 });
    t.close();
    await expect(call).rejects.toBeInstanceOf(CallAbandonedError);
    await t.clock.settle();
    expect(t.server.stats()).toMatchObject({ inFlight: 0, connections: 0 });
  });
});
