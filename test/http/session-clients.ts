/**
 * Raw clients of the HTTP session table, for the tests that fill it: a
 * Streamable HTTP session opened by an initialize alone (the cheap attack) or
 * by a well-behaved client, a GET stream that holds it busy, a legacy SSE
 * stream (busy while open), a ping naming a session, and a logger keeping the
 * table's evictions. Each takes the headers that say who the client is: a
 * trusted proxy header naming its peer, a bearer token naming its principal.
 */
import { initializeMessage, postJson, SseReader } from './helpers.js';

export type ClientHeaders = Record<string, string>;

/** Keeps a reader so the test's cleanup cancels it. */
export type Track = (reader: SseReader) => SseReader;

/** What the table logs of an eviction (sessions.ts SessionEviction). */
export interface Evicted {
  sessionId: string;
  peer: string;
  forPeer: string;
  reason: string;
  used: boolean;
  busy: boolean;
}

/** A server logger that keeps the session table's evictions and drops everything else. */
export function evictionLog(): { logger: { debug(): void; info(): void; error(): void; warn(obj: unknown, msg?: string): void }; evictions: Evicted[] } {
  const evictions: Evicted[] = [];
  const logger = {
    debug() {},
    info() {},
    error() {},
    warn: (obj: unknown, msg?: string) => {
      if (msg === 'HTTP session evicted to make room for a new one') evictions.push(obj as Evicted);
    },
  };
  return { logger, evictions };
}

/** An initialize POST only (never followed by notifications/initialized). */
export async function initializeOnly(url: string, headers: ClientHeaders): Promise<{ status: number; sessionId: string | null }> {
  const response = await postJson(url, initializeMessage(1), headers);
  await response.body?.cancel();
  return { status: response.status, sessionId: response.headers.get('mcp-session-id') };
}

/** A well-behaved client: initialize, then notifications/initialized; the session's id. */
export async function session(url: string, headers: ClientHeaders): Promise<string> {
  const init = await initializeOnly(url, headers);
  if (init.status !== 200 || init.sessionId === null) throw new Error(`initialize answered ${init.status}`);
  const initialized = await postJson(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...headers, 'mcp-session-id': init.sessionId });
  await initialized.body?.cancel();
  return init.sessionId;
}

/** Opens the session's standalone GET stream (holding it busy) and reads its first frame. */
export async function openStream(url: string, sessionId: string, headers: ClientHeaders, track: Track): Promise<SseReader> {
  const reader = track(new SseReader(await fetch(url, { headers: { ...headers, accept: 'text/event-stream', 'mcp-session-id': sessionId } })));
  await reader.next();
  return reader;
}

export interface LegacyStream {
  readonly reader: SseReader;
  /** Where to POST, as the `endpoint` event named it. */
  readonly endpoint: string;
  readonly sessionId: string;
}

/** `GET /sse`: the open stream (the session, busy while it lasts) after its endpoint event, or the refusal's status. */
export async function openLegacyStream(base: string, headers: ClientHeaders, track: Track): Promise<{ status: number; stream?: LegacyStream }> {
  const response = await fetch(`${base}/sse`, { headers: { ...headers, accept: 'text/event-stream' } });
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status };
  }
  const reader = track(new SseReader(response));
  const first = await reader.next();
  if (first.event !== 'endpoint' || first.data === undefined) throw new Error(`the first SSE event was ${first.event ?? 'unnamed'}, not endpoint`);
  const sessionId = new URL(first.data, base).searchParams.get('sessionId');
  if (sessionId === null) throw new Error(`no sessionId in ${first.data}`);
  return { status: 200, stream: { reader, endpoint: first.data, sessionId } };
}

/** A ping naming a Streamable HTTP session; the status. */
export async function ping(url: string, sessionId: string, headers: ClientHeaders): Promise<number> {
  const response = await postJson(url, { jsonrpc: '2.0', id: 7, method: 'ping' }, { ...headers, 'mcp-session-id': sessionId });
  await response.body?.cancel();
  return response.status;
}
