/**
 * The node handler behind a body parser: whatever the parser left in
 * `req.body` is used (a value as it is; text or bytes checked against
 * maxBodyBytes and parsed), and a stream drained with nothing left is a
 * clear 500 rather than a wait for an end that already came. With a `next`,
 * a path it does not serve is passed on; without one it stays a 404.
 */
import { createServer as createNodeServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { createServer, Registry } from '../../lib/index.js';
import { createHttpHandler, type HttpHandler } from '../../transports/index.js';
import { initializeMessage, postJson } from '../http/helpers.js';

type Leave = 'value' | 'text' | 'bytes' | 'nothing';

/** A parser before the handler: reads the whole body and leaves it as told. */
function parserThen(handler: HttpHandler, leave: Leave) {
  return (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      if (leave === 'value') req.body = JSON.parse(bytes.toString('utf8')) as unknown;
      else if (leave === 'text') req.body = bytes.toString('utf8');
      else if (leave === 'bytes') req.body = bytes;
      handler(req, res);
    });
  };
}

describe('node handler behind a body parser', () => {
  let http: Server | undefined;
  let handler: HttpHandler | undefined;

  afterEach(async () => {
    handler?.close();
    http?.closeAllConnections();
    await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
    http = undefined;
  });

  async function serve(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
    http = createNodeServer(listener);
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  }

  function make(maxBodyBytes?: number): HttpHandler {
    handler = createHttpHandler(createServer({ registry: new Registry() }), { requireAuthorization: false, maxBodyBytes });
    return handler;
  }

  test.each(['value', 'text', 'bytes'] as const)('a body left as %s is answered', async (leave) => {
    const url = await serve(parserThen(make(), leave));
    const response = await postJson(url, initializeMessage());
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('rxmcp');
  });

  test.each(['text', 'bytes'] as const)('a body left as %s is held to maxBodyBytes and parsed: 413, -32700', async (leave) => {
    const url = await serve(parserThen(make(256), leave));
    expect((await postJson(url, { ...initializeMessage(), padding: 'x'.repeat(512) })).status).toBe(413);
    const bad = await postJson(url, '{"jsonrpc":');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ id: null, error: { code: -32700 } });
  });

  test('a stream drained with no body left: a 500 that says why, not a hang', async () => {
    const url = await serve(parserThen(make(), 'nothing'));
    const response = await postJson(url, initializeMessage());
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('read before the MCP handler');
  });

  test('with a next, a path it does not serve is passed on untouched; without one it is the 404 as before', async () => {
    const h = make();
    const passed: string[] = [];
    const url = await serve((req, res) =>
      h(req, res, () => {
        passed.push(req.url ?? '');
        res.end('app');
      }),
    );
    const base = url.replace(/\/mcp$/, '');
    expect(await (await fetch(`${base}/app/page`, { headers: { origin: 'https://evil.example' } })).text()).toBe('app');
    expect(passed).toEqual(['/app/page']);
    expect((await postJson(url, initializeMessage())).status).toBe(200);
    http!.closeAllConnections();
    await new Promise((resolve) => http!.close(resolve));
    const standalone = await serve(h);
    const missing = await fetch(standalone.replace(/\/mcp$/, '/app/page'));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { message: 'Not Found: /app/page' } });
  });
});
