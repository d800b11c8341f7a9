/**
 * The upgrade checks that run before a socket exists: Host and Origin
 * against their allow-lists (a DNS-rebinding page or a foreign origin gets
 * 403), and the subprotocol (a client offering subprotocols, none of them
 * "mcp", gets 400; one offering none is accepted). A refusal is a plain HTTP
 * response on the raw socket, then the socket is destroyed.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { normalizeHostname } from './options.js';

/** The WebSocket subprotocol of MCP. */
export const MCP_SUBPROTOCOL = 'mcp';

export type HandshakeVerdict = { readonly ok: true } | { readonly ok: false; readonly status: number; readonly reason: string };

const OK: HandshakeVerdict = { ok: true };

function hostnameOf(hostHeader: string): string | undefined {
  try {
    return normalizeHostname(new URL(`http://${hostHeader}`).hostname);
  } catch {
    return undefined;
  }
}

export function checkHost(hostHeader: string | undefined, allowed: ReadonlySet<string> | null): HandshakeVerdict {
  if (allowed === null) return OK;
  const hostname = hostHeader === undefined ? undefined : hostnameOf(hostHeader);
  if (hostname !== undefined && allowed.has(hostname)) return OK;
  return { ok: false, status: 403, reason: `Host ${JSON.stringify(hostHeader ?? '')} is not allowed (see allowedHosts)` };
}

export function checkOrigin(origin: string | undefined, allowed: ReadonlySet<string> | null): HandshakeVerdict {
  // No Origin: not a browser, so not a page riding the user's loopback access.
  if (allowed === null || origin === undefined) return OK;
  if (allowed.has(origin.toLowerCase())) return OK;
  try {
    const url = new URL(origin);
    if (allowed.has(url.origin.toLowerCase()) || allowed.has(normalizeHostname(url.hostname))) return OK;
  } catch {
    // An opaque origin ("null") or garbage: only an explicit entry lets it in, checked above.
  }
  return { ok: false, status: 403, reason: `Origin ${JSON.stringify(origin)} is not allowed (see allowedOrigins)` };
}

export function offeredSubprotocols(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = Array.isArray(header) ? header.join(',') : header;
  return joined
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

export function checkSubprotocol(header: string | string[] | undefined): HandshakeVerdict {
  const offered = offeredSubprotocols(header);
  if (offered.length === 0 || offered.includes(MCP_SUBPROTOCOL)) return OK;
  return { ok: false, status: 400, reason: `unsupported subprotocol: this endpoint speaks "${MCP_SUBPROTOCOL}"` };
}

export function checkHandshake(
  request: IncomingMessage,
  allow: { readonly allowedHosts: ReadonlySet<string> | null; readonly allowedOrigins: ReadonlySet<string> | null },
): HandshakeVerdict {
  for (const verdict of [
    checkHost(request.headers.host, allow.allowedHosts),
    checkOrigin(request.headers.origin, allow.allowedOrigins),
    checkSubprotocol(request.headers['sec-websocket-protocol']),
  ]) {
    if (!verdict.ok) return verdict;
  }
  return OK;
}

/** Answers the upgrade request with a plain HTTP error and drops the socket. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.on('error', () => {});
  if (socket.writable) {
    const body = `${reason}\n`;
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
        'Connection: close\r\n' +
        'Content-Type: text/plain; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        '\r\n' +
        body,
    );
  }
  socket.destroy();
}
