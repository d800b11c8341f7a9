/**
 * The example's round-robin proxy on its own, against small node:http
 * upstreams in this process: each request to the next upstream, the
 * client's X-Forwarded-For replaced, a response streamed as it is written,
 * a client gone closes the upstream request, an upstream gone breaks the
 * client's response, a refused upstream skipped (the request never reached
 * it), one that fails after connecting never retried, and 502 when none takes it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { freePort } from '../../examples/cluster/processes.js';
import { startProxy, type ProxyHandle } from '../../examples/cluster/proxy.js';

type Handler = (req: IncomingMessage, res: ServerResponse, name: string) => void;

const servers: Server[] = [];
const proxies: ProxyHandle[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
});

async function upstream(name: string, handler: Handler): Promise<string> {
  const server = createServer((req, res) => handler(req, res, name));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function proxyTo(upstreams: string[]): Promise<ProxyHandle> {
  const proxy = await startProxy({ upstreams, downForMs: 60_000 });
  proxies.push(proxy);
  return proxy;
}

const whoAnswers: Handler = (req, res, name) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name, body, xff: req.headers['x-forwarded-for'] ?? null }));
  });
};

async function post(origin: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> | string }> {
  const response = await fetch(`${origin}/mcp`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const text = await response.text();
  try {
    return { status: response.status, json: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, json: text };
  }
}

describe('the round-robin proxy', () => {
  test('sends each request to the next upstream, with its body, and replaces the X-Forwarded-For a client wrote', async () => {
    const proxy = await proxyTo([await upstream('a', whoAnswers), await upstream('b', whoAnswers), await upstream('c', whoAnswers)]);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await post(proxy.origin, `{"n":${i}}`, { 'x-forwarded-for': '6.6.6.6' })).json as Record<string, unknown>);
    expect(answers.map((answer) => answer.name)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(answers.map((answer) => answer.body)).toEqual([0, 1, 2, 3, 4, 5].map((n) => `{"n":${n}}`));
    expect(new Set(answers.map((answer) => answer.xff))).toEqual(new Set(['127.0.0.1']));
    expect([...proxy.forwarded.values()]).toEqual([2, 2, 2]);
  });

  test('streams a response as the upstream writes it (an SSE event arrives before the stream ends)', async () => {
    let finish: (() => void) | undefined;
    const proxy = await proxyTo([
      await upstream('sse', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        finish = () => res.end('data: last\n\n');
      }),
    ]);
    const response = await fetch(`${proxy.origin}/mcp`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe('data: first\n\n');
    finish!();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe('data: last\n\n');
  });

  test('a client that goes away closes the upstream request; an upstream that breaks breaks the client response', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    let breakIt: (() => void) | undefined;
    const proxy = await proxyTo([
      await upstream('held', (req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: open\n\n');
        if (req.url === '/gone') req.socket.once('close', () => upstreamClosed());
        else breakIt = () => res.destroy();
      }),
    ]);
    const abort = new AbortController();
    const gone = await fetch(`${proxy.origin}/gone`, { signal: abort.signal });
    await gone.body!.getReader().read();
    abort.abort();
    await closed;

    const broken = await fetch(`${proxy.origin}/broken`);
    const reader = broken.body!.getReader();
    await reader.read();
    breakIt!();
    // A clean end would read done; a broken upstream must reach the client as an error.
    await expect((async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
    })()).rejects.toThrow();
  });

  test('skips an upstream that refuses the connection (the request never reached it); 502 when none takes it', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const proxy = await proxyTo([dead, await upstream('alive', whoAnswers)]);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(((await post(proxy.origin, `{"n":${i}}`)).json as Record<string, unknown>).name);
    expect(answers).toEqual(['alive', 'alive', 'alive']);
    expect(((await post(proxy.origin, 'x')).json as Record<string, unknown>).body).toBe('x');

    const nothing = await proxyTo([dead]);
    const refused = await post(nothing.origin, '{}');
    expect(refused.status).toBe(502);
  });

  test('never retries a request an upstream accepted and then failed (it may have run it)', async () => {
    let reached = 0;
    const proxy = await proxyTo([
      await upstream('drops', (req) => {
        reached += 1;
        req.socket.destroy();
      }),
      await upstream('fine', whoAnswers),
    ]);
    const first = await post(proxy.origin, '{"once":true}');
    expect(first.status).toBe(502);
    expect(reached).toBe(1);
    // The next one goes round to the other upstream, as usual.
    expect(((await post(proxy.origin, '{}')).json as Record<string, unknown>).name).toBe('fine');
  });
});
