/**
 * A Streamable HTTP client on node:http: every message is its own POST with
 * `Accept: application/json, text/event-stream`, on a keep-alive Agent so a
 * run reuses its sockets. The first Mcp-Session-Id the server hands out is
 * sent on every later request. A reply is read from a JSON body (one message
 * or a batch) or from an SSE stream, resolving as soon as the event carrying
 * our id arrives; the rest of the stream is drained so the socket goes back
 * to the pool. A notification is answered 202 with no body. A server URL
 * whose fragment is `#bearer=<token>` (the bench servers' convention for an
 * authenticated run) has every request sent with `Authorization: Bearer`.
 *
 * `modern`: every request is a 2026-07-28 one (the `_meta` envelope of
 * modern-meta.ts and the standard headers: MCP-Protocol-Version, Mcp-Method,
 * Mcp-Name), no session.
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { MODERN_PROTOCOL_VERSION, requestText } from './modern-meta.js';
import { isReply, type JsonRpcId, type JsonRpcReply, type RpcClient } from './rpc-client.js';
import { SseReader } from './sse-reader.js';

export function keepAliveAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (body += chunk));
    response.once('end', () => resolve(body));
    response.once('error', reject);
  });
}

function findReply(decoded: unknown, id: JsonRpcId): JsonRpcReply | undefined {
  const messages = Array.isArray(decoded) ? (decoded as unknown[]) : [decoded];
  return messages.find((m): m is JsonRpcReply => isReply(m) && m.id === id);
}

function replyFromSse(response: IncomingMessage, id: JsonRpcId): Promise<JsonRpcReply> {
  return new Promise((resolve, reject) => {
    const reader = new SseReader();
    let settled = false;
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      if (settled) return;
      for (const data of reader.feed(chunk)) {
        let reply: JsonRpcReply | undefined;
        try {
          reply = findReply(JSON.parse(data), id);
        } catch {
          continue;
        }
        if (reply !== undefined) {
          settled = true;
          resolve(reply);
          return;
        }
      }
    });
    response.once('end', () => {
      if (!settled) reject(new Error(`SSE stream ended without a reply to ${String(id)}`));
    });
    response.once('error', reject);
  });
}

function modernHeaders(method: string, params: unknown): Record<string, string> {
  const headers: Record<string, string> = { 'MCP-Protocol-Version': MODERN_PROTOCOL_VERSION, 'Mcp-Method': method };
  const name = (params as { name?: unknown; uri?: unknown } | undefined)?.name ?? (params as { uri?: unknown } | undefined)?.uri;
  if (typeof name === 'string') headers['Mcp-Name'] = name;
  return headers;
}

export class HttpClient implements RpcClient {
  private nextId = 1;
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private readonly url: URL;
  private readonly authorization: string | undefined;

  constructor(
    url: string,
    private readonly agent: Agent,
    private readonly modern = false,
  ) {
    this.url = new URL(url);
    const bearer = /^#bearer=(\S+)$/.exec(this.url.hash)?.[1];
    this.authorization = bearer === undefined ? undefined : `Bearer ${bearer}`;
  }

  get session(): string | undefined {
    return this.sessionId;
  }

  async request(method: string, params?: unknown): Promise<JsonRpcReply> {
    const id = this.nextId++;
    const body = requestText(id, method, params, this.modern ? 'modern' : 'none');
    const response = this.modern ? await this.send('POST', body, modernHeaders(method, params)) : await this.send('POST', body);
    const type = String(response.headers['content-type'] ?? '');
    if (response.statusCode !== 200) {
      throw new Error(`HTTP ${String(response.statusCode)} for ${method}: ${await readAll(response)}`);
    }
    if (type.includes('text/event-stream')) return replyFromSse(response, id);
    const reply = findReply(JSON.parse(await readAll(response)), id);
    if (reply === undefined) throw new Error(`no reply to ${String(id)} in the JSON body`);
    return reply;
  }

  async notify(method: string, params?: unknown): Promise<void> {
    const response = await this.post({ jsonrpc: '2.0', method, params });
    const body = await readAll(response);
    if (response.statusCode !== 202 && response.statusCode !== 200) {
      throw new Error(`HTTP ${String(response.statusCode)} for ${method}: ${body}`);
    }
  }

  negotiated(protocolVersion: string): void {
    this.protocolVersion = protocolVersion;
  }

  async close(): Promise<void> {
    // The agent is shared by the sessions of a run; its owner destroys it.
  }

  /** Ends the session with DELETE, so the server frees what it holds for it. */
  async deleteSession(): Promise<void> {
    if (this.sessionId === undefined) return;
    const response = await this.send('DELETE', undefined);
    const body = await readAll(response);
    if (response.statusCode !== 200 && response.statusCode !== 204) {
      throw new Error(`HTTP ${String(response.statusCode)} for DELETE: ${body}`);
    }
    this.sessionId = undefined;
  }

  private post(message: unknown): Promise<IncomingMessage> {
    return this.send('POST', JSON.stringify(message));
  }

  private send(method: 'POST' | 'DELETE', body: string | undefined, extra: Record<string, string> = {}): Promise<IncomingMessage> {
    const headers: Record<string, string | number> = { Accept: 'application/json, text/event-stream', ...extra };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    if (this.sessionId !== undefined) headers['Mcp-Session-Id'] = this.sessionId;
    if (this.protocolVersion !== undefined) headers['MCP-Protocol-Version'] = this.protocolVersion;
    if (this.authorization !== undefined) headers.Authorization = this.authorization;
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        { agent: this.agent, host: this.url.hostname, port: this.url.port, path: this.url.pathname + this.url.search, method, headers },
        (response) => {
          const minted = response.headers['mcp-session-id'];
          if (typeof minted === 'string' && this.sessionId === undefined) this.sessionId = minted;
          resolve(response);
        },
      );
      request.once('error', reject);
      request.end(body);
    });
  }
}
