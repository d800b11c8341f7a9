/**
 * peerOf: the best identity of the remote peer a network transport has, the
 * key the fairness rules count by. The socket's remote address, unless the
 * operator names a header set by a proxy they trust: then that header's
 * first (client-most) value. A client can write any header, so the header is
 * read only when configured; without it every client behind one proxy is one
 * peer, which is the safe side.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ConfigError } from '../lib/errors.js';

/** Peer keys are bounded so a forged header cannot make a large map key. */
const MAX_PEER_KEY_LENGTH = 256;

/**
 * What peerOf reads of a request: its headers and, on node, its socket. A
 * fetch `Request` has no socket, so without a trusted proxy header every
 * fetch client is the one peer `addr:unknown` (the safe side again).
 */
export interface PeerSource {
  readonly headers: IncomingHttpHeaders;
  readonly socket?: { readonly remoteAddress?: string | undefined } | undefined;
}

export function peerOf(req: PeerSource, trustedProxyHeader?: string): string {
  if (trustedProxyHeader !== undefined) {
    const raw = req.headers[trustedProxyHeader.toLowerCase()];
    const value = Array.isArray(raw) ? raw[0] : raw;
    const first = value?.split(',')[0]?.trim();
    if (first) return `addr:${first.slice(0, MAX_PEER_KEY_LENGTH)}`;
  }
  return `addr:${req.socket?.remoteAddress ?? 'unknown'}`;
}

/** Validates the `trustedProxyHeader` transport option (an HTTP header name, kept lower-case). */
export function trustedProxyHeaderOption(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(value)) {
    throw new ConfigError('trustedProxyHeader', `trustedProxyHeader must be an HTTP header name, got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}
