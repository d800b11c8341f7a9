/**
 * The official clients the cluster tests point at the proxy (or at one node):
 * the SDK v2 client (`@modelcontextprotocol/client` 2.4.0) pinned to
 * 2026-07-28, and the SDK v1 client (`@modelcontextprotocol/sdk` 1.32.2) on
 * the legacy wire, over Streamable HTTP sessions or the HTTP+SSE transport.
 * Every client made here is closed by `closeClients()` (afterEach).
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { modernPost } from '../http-modern/helpers.js';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';

const opened: Array<{ close(): Promise<void> }> = [];

export async function closeClients(): Promise<void> {
  await Promise.all(opened.splice(0).map((client) => client.close().catch(() => {})));
}

export type ElicitAnswer = { action: 'accept'; content: Record<string, string | number | boolean> } | { action: 'decline' };

/** A v2 client, pinned to the modern era unless `mode` says 'auto'; `answer` answers every elicitation (approvals included). */
export async function modernClient(url: string, answer?: () => ElicitAnswer, mode: 'auto' | { pin: string } = { pin: MODERN }): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'cluster-e2e-modern', version: '1.0.0' },
    { capabilities: answer === undefined ? {} : { elicitation: {} }, versionNegotiation: { mode, probe: { timeoutMs: 10_000 } } },
  );
  if (answer !== undefined) client.setRequestHandler('elicitation/create', () => answer());
  opened.push(client);
  await client.connect(new ModernHttpTransport(new URL(url)));
  return client;
}

/** A v1 client on the legacy wire: a Streamable HTTP session or an HTTP+SSE one. */
export async function legacyClient(url: string, wire: 'streamable' | 'sse', answer?: () => ElicitAnswer): Promise<{ client: LegacyClient; transport: StreamableHTTPClientTransport | SSEClientTransport }> {
  const client = new LegacyClient({ name: 'cluster-e2e-legacy', version: '1.0.0' }, { capabilities: answer === undefined ? {} : { elicitation: {} } });
  if (answer !== undefined) client.setRequestHandler(ElicitRequestSchema, () => answer());
  const transport = wire === 'sse' ? new SSEClientTransport(new URL(url)) : new StreamableHTTPClientTransport(new URL(url));
  opened.push(client);
  await client.connect(transport);
  return { client, transport };
}

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

/** The node that served a `whoami` call. */
export async function whoami(client: { callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown> }): Promise<string> {
  const parsed = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} }))) as { node?: unknown };
  if (typeof parsed.node !== 'string') throw new Error(`whoami answered without a node: ${JSON.stringify(parsed)}`);
  return parsed.node;
}

/** Polls `read` until `done` holds (bounded); returns the last value read. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
    value = await read();
  }
  return value;
}

export interface RawReply {
  readonly status: number;
  readonly id?: unknown;
  readonly result?: {
    resultType?: string;
    requestState?: string;
    isError?: boolean;
    content?: unknown;
    inputRequests?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  };
  readonly error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** One modern tools/call POSTed to `url` with its standard headers (and `headers`), declaring `capabilities`. */
export async function rawCall(
  url: string,
  id: number,
  params: Record<string, unknown>,
  options: { capabilities?: Record<string, unknown>; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<RawReply> {
  const response = await modernPost(url, id, 'tools/call', params, {
    capabilities: options.capabilities ?? {},
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const body = await response.text();
  try {
    return { status: response.status, ...(JSON.parse(body) as object) };
  } catch {
    throw new Error(`HTTP ${response.status}: ${body.slice(0, 300)}`);
  }
}

/** The scope of a busy answer (`server_busy`), or undefined when the call was not refused as busy. */
export function busyScope(reply: RawReply): string | undefined {
  const busy = reply.result?._meta?.['rxmcp/busy'] as { scope?: unknown } | undefined;
  if (busy !== undefined) return typeof busy.scope === 'string' ? busy.scope : 'unknown';
  const data = reply.error?.data as { error?: unknown; scope?: unknown } | undefined;
  if (data?.error === 'server_busy') return typeof data.scope === 'string' ? data.scope : 'node';
  // A node's own bound (maxInFlight) refuses without a scope.
  if (reply.result?.isError === true && textOf(reply.result) === 'Error: server_busy') return 'node';
  return undefined;
}

/** One raw legacy Streamable HTTP POST (`session` after initialize); the minted session id comes back. */
export async function legacyPost(url: string, session: string | undefined, message: Record<string, unknown>): Promise<{ status: number; session: string | undefined; body: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (session !== undefined) {
    headers['mcp-session-id'] = session;
    headers['mcp-protocol-version'] = LEGACY;
  }
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });
  return { status: response.status, session: response.headers.get('mcp-session-id') ?? undefined, body: await response.text() };
}

/** A raw legacy session on `url`: initialized, and subscribed to `uri` when given. */
export async function rawLegacySession(url: string, subscribe?: string): Promise<string> {
  const init = await legacyPost(url, undefined, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw-legacy', version: '1' } },
  });
  if (init.status !== 200 || init.session === undefined) throw new Error(`initialize: HTTP ${init.status} ${init.body.slice(0, 200)}`);
  const initialized = await legacyPost(url, init.session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  if (initialized.status !== 202) throw new Error(`notifications/initialized: HTTP ${initialized.status}`);
  if (subscribe !== undefined) {
    const subscribed = await legacyPost(url, init.session, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: subscribe } });
    if (subscribed.status !== 200) throw new Error(`resources/subscribe: HTTP ${subscribed.status}`);
  }
  return init.session;
}
