/**
 * Inbound frames to messages: a text frame holding JSON is a message; a
 * binary frame or text that is not JSON is a parse error the transport
 * answers with -32700 on the same socket, and the connection stays.
 */
import type { RawData } from 'ws';

export type DecodedFrame =
  | { readonly ok: true; readonly message: unknown }
  | { readonly ok: false; readonly detail: string };

function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** `parse`: JSON.parse, or the socket's RepeatedEnvelopeParser (same results, same throws). */
export function decodeFrame(data: RawData, isBinary: boolean, parse: (text: string) => unknown = JSON.parse): DecodedFrame {
  if (isBinary) return { ok: false, detail: 'binary frames are not supported; send JSON-RPC as text frames' };
  try {
    return { ok: true, message: parse(text(data)) };
  } catch {
    return { ok: false, detail: 'invalid JSON' };
  }
}
