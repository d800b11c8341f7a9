/**
 * Hostile finding 7: WebSocket outbound buffering needs a server-wide bound,
 * not only the per-socket one. `maxTotalBufferedBytes` caps the bytes all
 * sockets of one serveWebSocket hold unsent; over it the biggest holders
 * (the clients that stopped reading) are closed with 1013 first, until the
 * total is within the bound again. A client that keeps reading is untouched.
 *
 * Real `ws` clients on 127.0.0.1 that stop reading (their TCP socket
 * paused), with small bounds so the test is quick; the server's clock is
 * virtual and never advanced, so the close grace never runs and a paused
 * client can still read its close frame once it resumes.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { ConfigError } from '../../lib/index.js';
import { OutboundBudget, type BudgetHolder } from '../../transports/ws/outbound-budget.js';
import { serveWebSocket } from '../../transports/ws/serve-websocket.js';
import { eventually } from '../http/helpers.js';
import { closeAll, closeEvent, guardedServer, listen, openClient, virtualClock } from '../ws/helpers.js';

const KiB = 1024;
const tcpOf = (socket: WebSocket): Socket => (socket as unknown as { _socket: Socket })._socket;
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('OutboundBudget', () => {
  test('over the bound it evicts the biggest holders first, and only until the total is within it', () => {
    const evicted: string[] = [];
    const holder = (name: string): BudgetHolder => ({ evict: () => evicted.push(name) });
    const [a, b, c] = [holder('a'), holder('b'), holder('c')];
    const budget = new OutboundBudget(400);
    budget.record(a, 300);
    budget.record(b, 500);
    budget.record(c, 10);
    budget.enforce();
    expect(evicted).toEqual(['b']);
    expect(budget.bytes).toBe(310);
    budget.record(a, 100); // a flushed some
    budget.enforce();
    expect(evicted).toEqual(['b']);
    budget.record(c, 450);
    budget.enforce();
    expect(evicted).toEqual(['b', 'c']);
    expect(budget.bytes).toBe(100);
  });
});

describe('maxTotalBufferedBytes over real sockets', () => {
  afterEach(closeAll);

  test('non-readers are closed 1013 biggest first, one at a time; a reading client gets everything and stays', async () => {
    const server = guardedServer({ scheduler: virtualClock() });
    // The per-socket bound is far away: only the server-wide one can act here.
    const { url, transport } = await listen(server, { maxBufferedBytes: 64 * 1024 * KiB, maxTotalBufferedBytes: 1024 * KiB });
    const [a, b, reader] = [await openClient(url), await openClient(url), await openClient(url)];
    let read = 0;
    reader.on('message', () => (read += 1));
    let sent = 0;
    const push = async () => {
      server.notify('notifications/message', { level: 'info', data: 'x'.repeat(64 * KiB) });
      sent += 1;
      await turn();
    };

    // A stops reading first; once the kernel's buffers are full, what it does not read stays with us.
    tcpOf(a).pause();
    // (A closed socket stays in transport.connections until its close handshake ends; the server connection ends at once.)
    const open = () => server.stats().connections;
    while (transport.bufferedBytes < 512 * KiB && sent < 500) await push();
    expect(open()).toBe(3);
    // Then B stops too. A holds the most, so A goes first, and B (holding less) stays.
    tcpOf(b).pause();
    while (open() === 3 && sent < 1000) await push();
    expect(open()).toBe(2);
    expect(b.readyState).toBe(b.OPEN);
    expect(transport.bufferedBytes).toBeLessThanOrEqual(1024 * KiB + 64 * KiB);
    // B keeps not reading: it becomes the biggest holder and goes too.
    while (open() === 2 && sent < 1500) await push();
    expect(open()).toBe(1);

    await eventually(() => read === sent, 20_000);
    expect(reader.readyState).toBe(reader.OPEN);
    // Nothing is left counted for the closed sockets.
    await eventually(() => transport.bufferedBytes === 0, 20_000);

    for (const paused of [a, b]) {
      const closed = closeEvent(paused, 10_000);
      tcpOf(paused).resume();
      const { code, reason } = await closed;
      expect(code).toBe(1013);
      expect(reason).toContain('server-wide');
    }
  });

  test('maxTotalBufferedBytes must be a positive integer (ConfigError naming it)', async () => {
    const server = guardedServer();
    for (const value of [0, -1, 1.5, '1']) {
      const error = await serveWebSocket(server, { port: 0, maxTotalBufferedBytes: value as number }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).option).toBe('maxTotalBufferedBytes');
    }
  });
});
