/**
 * The relay: a request for a session this node does not hold, forwarded to
 * the node that does (session-directory.ts), over plain HTTP, streaming both
 * ways. Whatever the owner answers (a JSON reply, a POST's SSE stream, the
 * standalone GET stream, a 202 for an elicitation answer or a
 * `notifications/cancelled`, a DELETE's 204, a 404) goes back to the client
 * as it comes, and a client that goes away closes the forwarded request, so
 * the owner sees it leave as if it were connected itself.
 *
 * The forwarded request carries the client's headers (its bearer token too:
 * the owner authenticates it again, and the session's principal binding
 * holds there exactly as for a client of its own) and one more,
 * `x-rxmcp-relay`, signed with the deployment's relay key: the sending and
 * the receiving node, a timestamp, a nonce and the client's peer. The owner believes only a
 * header whose signature checks, whose timestamp is within
 * RELAY_WINDOW_MS of its own clock and whose nonce it has not seen; any other
 * is a 403. A relayed request is never relayed again (the loop guard).
 *
 * Only the connection is timed: an owner that does not accept one within
 * `connectTimeoutMs` (or refuses it: it died) is reported unreachable and the
 * request is a 404, so the client initializes anew instead of hanging. An
 * owner that fails after accepting is a 502, or a cut stream.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from '../../lib/logger.js';
import type { RequestHead, ResponseSink } from './exchange.js';
import { refuse } from './responses.js';
import type { SessionRoute } from '../../lib/ports/session-directory.js';

export const RELAY_HEADER = 'x-rxmcp-relay';
/** How far a relayed request's timestamp may be from the owner's clock. */
export const RELAY_WINDOW_MS = 30_000;
const MAX_NONCES = 65_536;
/** Unread bytes toward the client past which the owner's answer is paused until they drain. */
const HIGH_WATER_BYTES = 1024 * 1024;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length', 'host', RELAY_HEADER]);

function mac(key: Uint8Array, fields: readonly string[]): Buffer {
  return createHmac('sha256', key).update(fields.join('\n')).digest();
}

/** The `x-rxmcp-relay` value for a request of `method` from `fromNode` to `toNode` on behalf of `peer`. */
export function signRelay(key: Uint8Array, fromNode: string, toNode: string, method: string, peer: string, now: number): string {
  const fields = ['v1', fromNode, toNode, String(now), randomBytes(12).toString('base64url'), Buffer.from(peer).toString('base64url')];
  return [...fields, mac(key, [...fields, method]).toString('base64url')].join('.');
}

export type RelayCheck = { readonly ok: true; readonly fromNode: string; readonly peer: string } | { readonly ok: false; readonly reason: string };

/** Checks relayed requests on the owner: signature, clock window, and each nonce once. */
export class RelayVerifier {
  /** Nonces seen within the window, oldest first (a Map keeps insertion order). */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly key: Uint8Array,
    /** This node: a header signed for another one is not for here. */
    private readonly nodeId: string,
  ) {}

  check(value: string, method: string, now: number): RelayCheck {
    const parts = value.split('.');
    if (parts.length !== 7 || parts[0] !== 'v1') return { ok: false, reason: 'malformed relay header' };
    const [version, fromNode, toNode, at, nonce, peer, signature] = parts as [string, string, string, string, string, string, string];
    const expected = mac(this.key, [version, fromNode, toNode, at, nonce, peer, method]);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'relay header not signed by this deployment' };
    if (toNode !== this.nodeId) return { ok: false, reason: 'relay header signed for another node' };
    const time = Number(at);
    if (!Number.isSafeInteger(time) || Math.abs(now - time) > RELAY_WINDOW_MS) return { ok: false, reason: 'relay header outside its time window' };
    this.forgetBefore(now - RELAY_WINDOW_MS);
    if (this.seen.has(nonce)) return { ok: false, reason: 'relay header replayed' };
    this.seen.set(nonce, time);
    if (this.seen.size > MAX_NONCES) this.seen.delete(this.seen.keys().next().value!);
    return { ok: true, fromNode, peer: Buffer.from(peer, 'base64url').toString('utf8') };
  }

  private forgetBefore(limit: number): void {
    for (const [nonce, time] of this.seen) {
      if (time >= limit) {
        // Not strictly in time order (clocks differ a little), so a late straggler may stay a while: bounded by MAX_NONCES anyway.
        return;
      }
      this.seen.delete(nonce);
    }
  }
}

export interface Forward {
  readonly route: SessionRoute;
  /** The path and query to ask the owner for (the route URL's own path, if any, goes first). */
  readonly path: string;
  /** The request body, already read and parsed here (undefined for GET and DELETE). */
  readonly body: unknown;
  readonly relayHeader: string;
  readonly connectTimeoutMs: number;
  readonly logger: Logger;
  /** The owner refused or did not take the connection. */
  unreachable(): void;
}

function forwardedHeaders(req: RequestHead, relayHeader: string, body: string | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  // The owner runs the same Host/Origin guard, on what the client sent.
  if (req.headers.host !== undefined) headers.host = req.headers.host;
  headers[RELAY_HEADER] = relayHeader;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  return headers;
}

function answerHeaders(upstream: IncomingMessage): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && (name === 'content-length' || !HOP_BY_HOP.has(name))) headers[name] = value;
  }
  return headers;
}

/** Forwards `req` (whose body, if any, is `forward.body`) to its session's owner and streams the answer to `res`; `notFound` when the owner is gone. */
export function relayRequest(req: RequestHead, res: ResponseSink, forward: Forward, notFound: () => void): void {
  const base = new URL(forward.route.url);
  const body = forward.body === undefined ? undefined : JSON.stringify(forward.body);
  const send = base.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send({
    protocol: base.protocol,
    hostname: base.hostname,
    port: base.port,
    path: `${base.pathname.replace(/\/$/, '')}${forward.path}`,
    method: req.method ?? 'GET',
    headers: forwardedHeaders(req, forward.relayHeader, body),
    // A fresh connection per request: a pooled socket to an owner that just died would fail after "connecting".
    agent: false,
  });
  let connected = false;
  let finished = false;
  let connectTimer: NodeJS.Timeout | undefined = setTimeout(() => upstream.destroy(new Error('relay: connect timeout')), forward.connectTimeoutMs);
  const connectedNow = (): void => {
    connected = true;
    clearTimeout(connectTimer);
    connectTimer = undefined;
  };
  upstream.on('socket', (socket) => {
    if (!socket.connecting) connectedNow();
    else socket.once('connect', connectedNow);
  });
  upstream.on('error', (error) => {
    clearTimeout(connectTimer);
    if (finished) return;
    finished = true;
    if (!connected) {
      forward.logger.warn({ node: forward.route.nodeId, err: error.message }, 'relay: the node holding the session is unreachable');
      forward.unreachable();
      if (!res.headersSent && !res.destroyed) notFound();
      return;
    }
    forward.logger.warn({ node: forward.route.nodeId, err: error.message }, 'relay: the node holding the session failed mid-request');
    if (!res.headersSent && !res.destroyed) refuse(res, 502, 'Bad Gateway: the node holding this session failed while answering');
    else res.destroy();
  });
  upstream.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, answerHeaders(answer));
    if (String(answer.headers['content-type'] ?? '').startsWith('text/event-stream')) res.flushHeaders();
    answer.on('data', (chunk: Buffer) => {
      res.write(chunk, () => {
        if (answer.isPaused() && res.writableLength < HIGH_WATER_BYTES) answer.resume();
      });
      if (res.writableLength >= HIGH_WATER_BYTES) answer.pause();
    });
    answer.on('end', () => {
      finished = true;
      res.end();
    });
    // The owner went away mid-answer (a cut stream, a crash): so does the answer to the client.
    const cut = (): void => {
      if (finished) return;
      finished = true;
      res.destroy();
    };
    answer.on('error', cut);
    answer.on('close', () => {
      if (!answer.complete) cut();
    });
  });
  // The client left: so does the forwarded request (the owner sees its stream close).
  res.on('close', () => {
    if (!finished) {
      finished = true;
      clearTimeout(connectTimer);
      upstream.destroy();
    }
  });
  upstream.end(body);
}
