/**
 * Writing plain HTTP answers: a JSON body, or a refusal whose body is the
 * JSON-RPC error (no id) built in lib/errors.ts. A response that already
 * started or whose peer is gone is left alone.
 */
import { transportRefusal } from '../../lib/errors.js';
import type { ResponseSink } from './exchange.js';

export function sendJson(res: ResponseSink, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** An HTTP error status with the JSON-RPC refusal as its body. */
export function refuse(res: ResponseSink, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, transportRefusal(message), headers);
}

/** A status with no body (202 Accepted, 204 No Content). */
export function sendEmpty(res: ResponseSink, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, headers);
  res.end();
}
