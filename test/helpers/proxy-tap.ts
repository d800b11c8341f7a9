/**
 * What a test reads and does through the example proxy's hooks
 * (examples/cluster/proxy.ts): a log of which upstream took each request and
 * what its body held, steering by session, and cutting open answers as a
 * dropped connection would. Pass `tap.hooks` as the harness's proxyHooks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyHooks } from '../../examples/cluster/proxy.js';

export interface ProxiedRequest {
  readonly method: string;
  readonly url: string;
  /** From the Mcp-Session-Id header, or the legacy `sessionId` query. */
  readonly sessionId: string | undefined;
  /** The upstream (index) that took it; a refused one before it is not kept. */
  backend: number;
  /** What the body holds (once it has all arrived): a JSON-RPC request, notification or response (by its method), or nothing. */
  kind: 'request' | 'notification' | 'response' | 'none';
  /** The body's method, if any. */
  rpcMethod: string | undefined;
}

export interface ProxyTap {
  readonly hooks: ProxyHooks;
  /** Every request, in the order it was first sent. */
  readonly log: readonly ProxiedRequest[];
  /** Overrides round-robin: the upstream for a request of this session (undefined: the next in turn). */
  steer: ((sessionId: string | undefined) => number | undefined) | undefined;
  /** Destroys the open answers `which` picks (the client sees its connection drop); how many. */
  cut(which: (entry: ProxiedRequest, contentType: string) => boolean): number;
}

function sessionOf(req: IncomingMessage): string | undefined {
  const header = req.headers['mcp-session-id'];
  return typeof header === 'string' ? header : (new URL(req.url ?? '/', 'http://proxy').searchParams.get('sessionId') ?? undefined);
}

function readBody(req: IncomingMessage, entry: ProxiedRequest): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('end', () => {
    try {
      const body = Buffer.concat(chunks);
      const message = body.length === 0 ? undefined : (JSON.parse(body.toString('utf8')) as unknown);
      if (typeof message !== 'object' || message === null) return;
      const method = (message as { method?: unknown }).method;
      entry.rpcMethod = typeof method === 'string' ? method : undefined;
      entry.kind = entry.rpcMethod === undefined ? 'response' : 'id' in message ? 'request' : 'notification';
    } catch {
      entry.kind = 'none';
    }
  });
}

export function proxyTap(): ProxyTap {
  const log: ProxiedRequest[] = [];
  const entries = new WeakMap<IncomingMessage, ProxiedRequest>();
  const open = new Set<{ entry: ProxiedRequest; contentType: string; res: ServerResponse }>();
  const tap: ProxyTap = {
    log,
    steer: undefined,
    hooks: {
      steer: (req) => tap.steer?.(sessionOf(req)),
      sent(req, index) {
        const known = entries.get(req);
        if (known !== undefined) {
          known.backend = index;
          return;
        }
        const entry: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', sessionId: sessionOf(req), backend: index, kind: 'none', rpcMethod: undefined };
        entries.set(req, entry);
        log.push(entry);
        readBody(req, entry);
      },
      answered(req, answer, res) {
        const item = { entry: entries.get(req)!, contentType: String(answer.headers['content-type'] ?? ''), res };
        open.add(item);
        res.once('close', () => open.delete(item));
      },
    },
    cut(which) {
      let count = 0;
      for (const item of [...open]) {
        if (!which(item.entry, item.contentType)) continue;
        item.res.destroy();
        count += 1;
      }
      return count;
    },
  };
  return tap;
}
