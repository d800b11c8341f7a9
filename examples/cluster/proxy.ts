#!/usr/bin/env node
/**
 * A small round-robin HTTP proxy on 127.0.0.1 for the cluster example: each
 * REQUEST (not each connection) goes to the next upstream, with no
 * stickiness of any kind, so consecutive requests of one client, one session
 * or one approval land on different nodes, as behind a plain load balancer.
 *
 * - Bodies stream both ways: the request body is forwarded as it arrives, the
 *   response (an SSE stream included) is written as the node writes it, with
 *   its headers flushed at once.
 * - Closing propagates: a client that goes away closes the upstream request
 *   (the node sees its caller gone); an upstream that breaks (a killed node)
 *   breaks the client's response instead of ending it cleanly.
 * - A node that refuses the connection (down) is skipped for a second and the
 *   request is sent to the next one: that is safe because it never reached a
 *   node. Anything that fails after the connection was made is NOT retried
 *   (the node may have run it): the client sees the failure.
 * - `X-Forwarded-For` is set to the client's address, replacing any the client sent
 *   (the nodes trust it, see node.ts).
 * - Optional `hooks` let a test steer a request to a chosen upstream, see
 *   where each one went, and cut an answer as a dropped connection would.
 * WebSocket upgrades are not proxied (the example's clients speak HTTP).
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export interface ProxyOptions {
  /** Upstream origins, e.g. `http://127.0.0.1:4001`. */
  readonly upstreams: readonly string[];
  readonly port?: number;
  readonly host?: string;
  /** A refused upstream is skipped for this long. Default 1000 ms. */
  readonly downForMs?: number;
  /** Request-body bytes kept to resend to the next upstream when one refuses the connection. Default 4 MiB. */
  readonly maxReplayBytes?: number;
  readonly hooks?: ProxyHooks;
}

/** For tests: steering and watching, without changing what the proxy does when they are absent. */
export interface ProxyHooks {
  /** The upstream (an index) for a request instead of the next in turn; undefined keeps the turn. Asked once, before the first try. */
  steer?(req: IncomingMessage): number | undefined;
  /** `req` is being sent to upstream `index` (again, to another, when the one before refused the connection). */
  sent?(req: IncomingMessage, index: number): void;
  /** Its answer began; destroying `res` cuts the client off as a dropped connection would. */
  answered?(req: IncomingMessage, answer: IncomingMessage, res: ServerResponse): void;
}

export interface ProxyHandle {
  /** `http://127.0.0.1:<port>` (append `/mcp` or `/sse`). */
  readonly origin: string;
  readonly port: number;
  /** Requests sent to each upstream, by origin (what the spread tests and the bench read). */
  readonly forwarded: ReadonlyMap<string, number>;
  /** Replaces the upstreams (a node restarted on a new port); requests under way keep theirs. */
  setUpstreams(origins: readonly string[]): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

function forwardHeaders(headers: IncomingHttpHeaders, client: string | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  if (headers.host !== undefined) out.host = headers.host;
  // This proxy is the edge: whatever a client wrote in the header is replaced, never extended (the nodes trust its first value).
  out['x-forwarded-for'] = client ?? 'unknown';
  return out;
}

function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

function isRefused(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH';
}

export async function startProxy(options: ProxyOptions): Promise<ProxyHandle> {
  if (options.upstreams.length === 0) throw new Error('the proxy needs at least one upstream');
  let upstreams = options.upstreams.map((origin) => new URL(origin));
  const downUntil = new Map<string, number>();
  const forwarded = new Map<string, number>(upstreams.map((url) => [url.origin, 0]));
  const downForMs = options.downForMs ?? 1000;
  const maxReplayBytes = options.maxReplayBytes ?? 4 * 1024 * 1024;
  // Idle upstream sockets are dropped well before a node would close them (node.ts: 30 s).
  const agent = new Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 64, timeout: 10_000 });
  let next = 0;

  const pick = (tried: ReadonlySet<string>): URL | undefined => {
    const now = Date.now();
    for (let i = 0; i < upstreams.length; i++) {
      const url = upstreams[(next + i) % upstreams.length]!;
      if (tried.has(url.origin) || (downUntil.get(url.origin) ?? 0) > now) continue;
      next = (next + i + 1) % upstreams.length;
      return url;
    }
    // Every untried one is marked down: try them anyway rather than refuse outright.
    return upstreams.find((url) => !tried.has(url.origin));
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const headers = forwardHeaders(req.headers, req.socket.remoteAddress);
    const body: Buffer[] = [];
    let bodyBytes = 0;
    let replayable = true;
    let ended = false;
    let current: ClientRequest | undefined;
    const tried = new Set<string>();

    const fail = (status: number, message: string) => {
      // The client already left (its close destroyed the upstream request): nobody to answer.
      if (res.destroyed) return;
      if (!res.headersSent) {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(`${message}\n`);
      } else res.destroy();
    };

    const send = (): void => {
      const steered = tried.size === 0 ? options.hooks?.steer?.(req) : undefined;
      const target = (steered === undefined ? undefined : upstreams[steered]) ?? pick(tried);
      if (target === undefined) return fail(502, 'no upstream accepted the connection');
      tried.add(target.origin);
      options.hooks?.sent?.(req, upstreams.indexOf(target));
      forwarded.set(target.origin, (forwarded.get(target.origin) ?? 0) + 1);
      let connected = false;
      const upstream = httpRequest({ agent, host: target.hostname, port: target.port, method: req.method, path: req.url, headers });
      current = upstream;
      upstream.on('socket', (socket) => {
        if (!socket.connecting) connected = true;
        else socket.once('connect', () => (connected = true));
      });
      upstream.on('error', (err) => {
        if (current !== upstream) return;
        if (!connected && isRefused(err) && replayable && !res.headersSent) {
          downUntil.set(target.origin, Date.now() + downForMs);
          return send();
        }
        fail(502, `upstream ${target.origin} failed: ${(err as Error).message}`);
      });
      upstream.on('response', (answer) => {
        options.hooks?.answered?.(req, answer, res);
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeaders(answer.headers));
        res.flushHeaders();
        answer.pipe(res);
        // A node gone mid-stream must read as a break to the client, not as a clean end.
        answer.once('close', () => {
          if (!answer.complete) res.destroy();
        });
      });
      for (const chunk of body) upstream.write(chunk);
      if (ended) upstream.end();
    };

    req.on('data', (chunk: Buffer) => {
      if (replayable) {
        bodyBytes += chunk.length;
        if (bodyBytes > maxReplayBytes) {
          replayable = false;
          body.length = 0;
        } else body.push(chunk);
      }
      if (current !== undefined && !current.write(chunk)) {
        req.pause();
        current.once('drain', () => req.resume());
      }
    });
    req.once('end', () => {
      ended = true;
      current?.end();
    });
    // The client gone before its answer ended: the node must see its caller gone too.
    res.once('close', () => {
      if (!res.writableFinished) current?.destroy();
    });
    send();
  };

  const server = createServer(handle);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    forwarded,
    setUpstreams(origins) {
      if (origins.length === 0) throw new Error('the proxy needs at least one upstream');
      upstreams = origins.map((origin) => new URL(origin));
      for (const url of upstreams) if (!forwarded.has(url.origin)) forwarded.set(url.origin, 0);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

/** `node dist/examples/cluster/proxy.js [--port N] http://127.0.0.1:A http://127.0.0.1:B ...`: prints `READY <origin>`. */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let port = 0;
  const upstreams: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--port') port = Number(argv[++i]);
    else upstreams.push(new URL(argv[i]!).origin);
  }
  const proxy = await startProxy({ upstreams, port });
  process.stdout.write(`READY ${proxy.origin}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await proxy.close();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`proxy failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
