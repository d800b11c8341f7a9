/**
 * A user's extension method on the wire, both eras: over stdio (serveStdio
 * on in-process streams, raw lines) and over Streamable HTTP on 127.0.0.1
 * (the official 1.32.2 client for the legacy era, which declares the
 * extension in its capabilities; modern POSTs with their standard headers).
 * Declared: answered. Not declared: -32021 (HTTP 400 on the modern wire).
 * Denied by the read authorizer. Cancelled: no reply, the handler aborted.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { allowAll, createServer, denyAll, Registry, type Authorizer } from '../../lib/index.js';
import { serveHttp } from '../../transports/index.js';
import { note } from '../contract/helpers.js';
import { legacyInitialize, modernRpc } from '../era/modern-helpers.js';
import { stdioWire } from '../era/stdio-wire.js';
import { modernPost } from '../http-modern/helpers.js';
import { NOTES_ID, notesExtension } from './notes-extension.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

const declaring = { extensions: { [NOTES_ID]: {} } };
const rpc = (id: unknown, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });

/** The notes extension whose `hang` folder waits for its signal, reporting its start and its abort. */
function notesServer(readAuthorizer: Authorizer = allowAll()) {
  const aborted: string[] = [];
  const started: string[] = [];
  const extension = notesExtension(['a', 'b', 'c'], (folder, signal) => {
    if (folder !== 'hang') return { count: 3, folder };
    started.push(folder);
    return new Promise((resolve) => signal.addEventListener('abort', () => (aborted.push(folder), resolve({ count: -1 }))));
  });
  return { server: createServer({ registry: new Registry(), extensions: [extension], readAuthorizer }), aborted, started };
}

/** Turns of the event loop until `done` (the test's own timeout bounds it): no timer, no sleep. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

describe('stdio', () => {
  test('modern: declared, not declared, cancelled', async () => {
    const { server, aborted } = notesServer();
    const wire = stdioWire(server, closers);
    wire.send(modernRpc(1, 'notes/count', { folder: 'x' }, { capabilities: declaring }));
    expect(await wire.next()).toMatchObject({ id: 1, result: { resultType: 'complete', count: 3, folder: 'x' } });
    wire.send(modernRpc(2, 'notes/count'));
    expect(await wire.next()).toMatchObject({ id: 2, error: { code: -32021, data: { requiredCapabilities: { extensions: { [NOTES_ID]: {} } } } } });
    wire.send(modernRpc(3, 'notes/count', { folder: 'hang' }, { capabilities: declaring }));
    wire.send(note('notifications/cancelled', { requestId: 3 }));
    wire.send(modernRpc(4, 'notes/count', { folder: 'y' }, { capabilities: declaring }));
    expect(await wire.next()).toMatchObject({ id: 4, result: { folder: 'y' } });
    expect(aborted).toEqual(['hang']);
  });

  test('legacy: declared at initialize, denied by the read authorizer', async () => {
    const wire = stdioWire(notesServer(denyAll()).server, closers);
    wire.send(legacyInitialize('init', declaring));
    expect((await wire.next()).result.capabilities.extensions).toEqual({ [NOTES_ID]: { folders: true } });
    wire.send(rpc(1, 'notes/count'));
    expect(await wire.next()).toMatchObject({ id: 1, error: { code: -32090, data: { error: 'authorization_required', method: 'notes/count' } } });
  });
});

describe('Streamable HTTP', () => {
  async function serve(readAuthorizer?: Authorizer) {
    const { server, aborted, started } = notesServer(readAuthorizer);
    const http = await serveHttp(server, { port: 0 });
    closers.push(async () => {
      await http.close();
      server.close();
    });
    return { url: http.url, aborted, started };
  }

  test('legacy, the official client declaring the extension: its capabilities show it, its method answers', async () => {
    const { url } = await serve();
    const client = new Client({ name: 'notes-client', version: '1.0.0' }, { capabilities: declaring });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    closers.push(() => client.close());
    expect(client.getServerCapabilities()?.extensions).toEqual({ [NOTES_ID]: { folders: true } });
    const result = await client.request({ method: 'notes/count', params: { folder: 'z' } }, z.object({ count: z.number(), folder: z.string() }).passthrough());
    expect(result).toMatchObject({ count: 3, folder: 'z' });
  });

  test('legacy, the official client not declaring it: -32021', async () => {
    const { url } = await serve();
    const client = new Client({ name: 'plain-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    closers.push(() => client.close());
    await expect(client.request({ method: 'notes/count', params: {} }, z.object({}).passthrough())).rejects.toMatchObject({ code: -32021 });
  });

  test('modern: declared 200, not declared 400 with -32021, denied -31090', async () => {
    const { url } = await serve();
    const ok = await modernPost(url, 1, 'notes/count', { folder: 'm' }, { capabilities: declaring });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id: 1, result: { resultType: 'complete', count: 3, folder: 'm' } });
    const undeclared = await modernPost(url, 2, 'notes/count');
    expect(undeclared.status).toBe(400);
    expect(await undeclared.json()).toMatchObject({ id: 2, error: { code: -32021 } });
    const unknown = await modernPost(url, 3, 'notes/other');
    expect(unknown.status).toBe(404);
    const denied = await serve(denyAll());
    expect(await (await modernPost(denied.url, 4, 'notes/count', {}, { capabilities: declaring })).json()).toMatchObject({ error: { code: -31090 } });
  });

  test('modern: a client that goes away cancels the call, and the handler is aborted', async () => {
    const { url, aborted, started } = await serve();
    const controller = new AbortController();
    const pending = modernPost(url, 5, 'notes/count', { folder: 'hang' }, { capabilities: declaring, signal: controller.signal }).catch((e: unknown) => e);
    await until(() => started.length > 0);
    controller.abort();
    await pending;
    await until(() => aborted.length > 0);
    expect(aborted).toEqual(['hang']);
  });
});
