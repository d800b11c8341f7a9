/** The modern-era HTTP tests' server (the era fixture on 127.0.0.1) and modern POSTs with their standard headers. */
import { allowlist } from '../../lib/index.js';
import { serveHttp } from '../../transports/index.js';
import { eraServer, MODERN, modernRpc, type ModernOptions } from '../era/modern-helpers.js';

export const REGION_TOOL = 'regional';

export async function serveModern() {
  const { server, runs } = eraServer({
    authorizer: allowlist(['echo', 'chatty', 'ask_user', 'whoami', 'hang', 'waiter', 'broadcaster', REGION_TOOL]),
  });
  let onStarted: (() => void) | undefined;
  let onAborted: (() => void) | undefined;
  // Reports its start and its abort, then answers anyway (an answer nobody may see once the client left).
  server.registry.registerTool({
    name: 'waiter',
    handler: (_args, ctx) =>
      new Promise((resolve) => {
        runs.push('waiter started');
        ctx.progress(1, 2, 'started');
        onStarted?.();
        ctx.signal.addEventListener('abort', () => {
          runs.push('waiter aborted');
          onAborted?.();
          resolve('late');
        });
      }),
  });
  const started = () => new Promise<void>((resolve) => (onStarted = resolve));
  const aborted = () => new Promise<void>((resolve) => (onAborted = resolve));
  server.registry.registerTool({
    name: REGION_TOOL,
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        nested: { type: 'object', properties: { flag: { type: 'boolean', 'x-mcp-header': 'Flag' } } },
      },
    },
    handler: (args) => JSON.stringify(args),
  });
  const http = await serveHttp(server, { port: 0, idleSocketTimeoutMs: 3_600_000 });
  return {
    server,
    runs,
    started,
    aborted,
    http,
    url: http.url,
    close: async () => {
      await http.close();
      server.close();
    },
  };
}

const NAME_FIELD: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** The headers a conforming client sends with `method`/`params`. */
export function standardHeaders(method: string, params: Record<string, unknown> = {}): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  const field = NAME_FIELD[method];
  if (field !== undefined && typeof params[field] === 'string') headers['mcp-name'] = params[field] as string;
  return headers;
}

export interface PostOptions extends ModernOptions {
  /** Header overrides; undefined drops one. */
  readonly headers?: Record<string, string | undefined>;
  readonly accept?: string;
  readonly signal?: AbortSignal;
}

export function post(url: string, body: unknown, headers: Record<string, string | undefined>, accept = 'application/json, text/event-stream', signal?: AbortSignal) {
  const sent: Record<string, string> = { 'content-type': 'application/json', accept };
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  return fetch(url, { method: 'POST', headers: sent, body: JSON.stringify(body), signal });
}

/** A modern request POSTed with its standard headers (overridable). */
export function modernPost(url: string, id: unknown, method: string, params: Record<string, unknown> = {}, options: PostOptions = {}) {
  return post(url, modernRpc(id, method, params, options), { ...standardHeaders(method, params), ...options.headers }, options.accept, options.signal);
}

export function base64Header(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
