/**
 * A transport ending a connection on its own initiative while it can still
 * write (stdio `close()`, a WebSocket the server closes) tells each open
 * subscriptions/listen stream with notifications/cancelled naming it, and
 * sends no reply for it (2026-07-28 basic/patterns/cancellation). A peer
 * that went away is sent nothing. Real streams and sockets, bounded waits.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { createServer } from '../../lib/index.js';
import { serveStdio } from '../../transports/index.js';
import { closeAll, closeEvent, guardedServer, inbox, listen as listenWs, openClient } from '../ws/helpers.js';
import { ack, listen, tagged, type Msg } from './harness.js';

afterEach(closeAll);

/** The JSON lines written to `output` so far. */
function lines(output: PassThrough): () => Msg[] {
  let text = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => (text += chunk));
  return () =>
    text
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Msg);
}

/** A fresh server on stdio over in-process streams; `written` reads back what it wrote. */
function stdioConnection() {
  const server = createServer();
  const input = new PassThrough();
  const output = new PassThrough();
  const written = lines(output);
  return { server, input, written, handle: serveStdio(server, { input, output }) };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('a transport ending a live connection ends its listen streams with notifications/cancelled', () => {
  test('stdio close(): the ack, then one notifications/cancelled per stream, no reply', async () => {
    const { server, input, written, handle } = stdioConnection();
    input.write(`${JSON.stringify(listen(1, { toolsListChanged: true }))}\n`);
    input.write(`${JSON.stringify(listen('two', {}))}\n`);
    await settle();
    expect(server.stats().listens).toBe(2);
    handle.close();
    await handle.closed;
    await settle();
    const reason = 'the server closed the connection';
    expect(written()).toEqual([
      ack(1, { toolsListChanged: true }),
      ack('two', {}),
      tagged(1, 'notifications/cancelled', { requestId: 1, reason }),
      tagged('two', 'notifications/cancelled', { requestId: 'two', reason }),
    ]);
    expect(server.stats().listens).toBe(0);
  });

  test('stdio input ended by the peer: nothing more is written', async () => {
    const { server, input, written, handle } = stdioConnection();
    input.write(`${JSON.stringify(listen(1, { toolsListChanged: true }))}\n`);
    await settle();
    input.end();
    await handle.closed;
    await settle();
    expect(written()).toEqual([ack(1, { toolsListChanged: true })]);
    expect(server.stats().listens).toBe(0);
  });

  test('WebSocket transport close(): notifications/cancelled before the 1001 close frame', async () => {
    const server = guardedServer();
    const { url, transport } = await listenWs(server);
    const socket = await openClient(url);
    const messages = inbox(socket);
    socket.send(JSON.stringify(listen(7, { toolsListChanged: true })));
    expect(await messages.next()).toEqual(ack(7, { toolsListChanged: true }));
    const closed = closeEvent(socket);
    await transport.close();
    expect(await closed).toEqual({ code: 1001, reason: 'server shutting down' });
    expect(messages.all.slice(1)).toEqual([tagged(7, 'notifications/cancelled', { requestId: 7, reason: 'server shutting down' })]);
    expect(server.stats().listens).toBe(0);
  });
});
