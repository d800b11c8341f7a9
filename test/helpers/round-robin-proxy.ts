/**
 * A round-robin HTTP proxy on 127.0.0.1 for multi-node tests: every request
 * goes to the next backend in turn (no stickiness, as a plain load balancer),
 * streaming both ways. A backend that refuses the connection is skipped for
 * that request (nothing reached it, so trying the next is safe). The test
 * can cut open answers (`cut`) as a dropped connection would, steer
 * requests (`steer`), and reads which backend took each request, logged as
 * it is sent there (`log`).
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  readonly method: string;
  readonly url: string;
  readonly backend: number;
  /** From the Mcp-Session-Id header, or the legacy `sessionId` query. */
  readonly sessionId: string | undefined;
  /** What the body holds: a JSON-RPC request, notification or response (by its method), or nothing. */
  readonly kind: 'request' | 'notification' | 'response' | 'none';
  /** The body's method, if any. */
  readonly rpcMethod: string | undefined;
}

interface Open {
  readonly entry: ProxiedRequest;
  readonly contentType: string;
  readonly res: ServerResponse;
}

export interface RoundRobinProxy {
  readonly url: string;
  readonly log: ProxiedRequest[];
  /** Destroys the open answers `which` picks (the client sees its connection drop); how many. */
  cut(which: (entry: ProxiedRequest, contentType: string) => boolean): number;
  /** Overrides round-robin: the backend for a request (undefined: the next in turn). */
  steer: ((request: Omit<ProxiedRequest, 'backend'>) => number | undefined) | undefined;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(backends: readonly string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const log: ProxiedRequest[] = [];
  const open = new Set<Open>();

  function describe(req: IncomingMessage, body: Buffer): Omit<ProxiedRequest, 'backend'> {
    const header = req.headers['mcp-session-id'];
    const query = new URL(req.url ?? '/', 'http://proxy').searchParams.get('sessionId');
    let kind: ProxiedRequest['kind'] = 'none';
    let rpcMethod: string | undefined;
    try {
      const message = body.length === 0 ? undefined : (JSON.parse(body.toString('utf8')) as Record<string, unknown>);
      if (message !== undefined && typeof message === 'object' && message !== null) {
        rpcMethod = typeof message.method === 'string' ? message.method : undefined;
        kind = rpcMethod === undefined ? 'response' : 'id' in message ? 'request' : 'notification';
      }
    } catch {
      kind = 'none';
    }
    return { method: req.method ?? 'GET', url: req.url ?? '/', sessionId: typeof header === 'string' ? header : (query ?? undefined), kind, rpcMethod };
  }

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number): void {
    const described = describe(req, body);
    const steered = tries === 0 ? handle.steer?.(described) : undefined;
    const index = steered ?? next % backends.length;
    if (steered === undefined) next += 1;
    const target = new URL(backends[index]!);
    const entry: ProxiedRequest = { ...described, backend: index };
    const upstream = request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent: false });
    let answered = false;
    log.push(entry);
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered && error.code === 'ECONNREFUSED' && tries + 1 < backends.length) {
        log.splice(log.indexOf(entry), 1); // it never reached that backend
        return forward(req, res, body, tries + 1);
      }
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${error.message}`);
      } else res.destroy();
    });
    upstream.on('response', (answer) => {
      answered = true;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      const item: Open = { entry, contentType: String(answer.headers['content-type'] ?? ''), res };
      open.add(item);
      res.on('close', () => {
        open.delete(item);
        upstream.destroy();
      });
      answer.on('close', () => {
        if (!answer.complete) res.destroy();
      });
      answer.pipe(res);
    });
    upstream.end(body);
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 0));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const handle: RoundRobinProxy = {
    steer: undefined,
    url: `http://127.0.0.1:${port}`,
    log,
    cut(which) {
      let count = 0;
      for (const item of [...open]) {
        if (!which(item.entry, item.contentType)) continue;
        item.res.destroy();
        count += 1;
      }
      return count;
    },
    async close() {
      for (const item of [...open]) item.res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return handle;
}
