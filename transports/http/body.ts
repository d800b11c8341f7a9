/**
 * A POST body as JSON, whoever read it: at most `maxBytes` (more is a 413),
 * then parsed; undecodable text is the contract's -32700 with `id: null`,
 * as a 400. The readers (`node-body.ts`, `fetch-body.ts`) bring the bytes;
 * a body a framework already read (`express.json()`, Fastify's parser, a
 * Hono middleware) comes here as it was left: text or bytes are checked and
 * parsed like any body, a value is the parsed body itself (the parser that
 * made it applied its own limit).
 */
import { parseError, transportRefusal } from '../../lib/errors.js';

export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: 400 | 413 | 500; readonly body: unknown };

export function tooLarge(maxBytes: number): BodyResult {
  return { ok: false, status: 413, body: transportRefusal(`Payload Too Large: the body limit is ${maxBytes} bytes`) };
}

export function decodeJson(text: string): BodyResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, status: 400, body: parseError(detail) };
  }
}

/** A body read before the transport saw the request. */
export function fromReadBody(body: unknown, maxBytes: number): BodyResult {
  if (typeof body === 'string') return Buffer.byteLength(body) > maxBytes ? tooLarge(maxBytes) : decodeJson(body);
  if (body instanceof Uint8Array) {
    if (body.byteLength > maxBytes) return tooLarge(maxBytes);
    return decodeJson(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  }
  return { ok: true, value: body };
}

/**
 * The body stream was drained by something before the transport and no body
 * was left on the request: nothing to read, and waiting would hang. It is
 * the server's set-up, not the client's message, that is wrong.
 */
const BODY_ALREADY_READ: BodyResult = {
  ok: false,
  status: 500,
  body: transportRefusal(
    'Internal Server Error: the request body was read before the MCP handler and no parsed body was left on the request ' +
      '(mount the MCP handler before the body parser, or use one that sets req.body)',
  ),
};

/**
 * What every reader settles before reading: a body read before it (as it
 * was left), a stream drained with nothing left, a declared Content-Length
 * over the limit (refused before a byte is read). Undefined: read the stream.
 */
export function settledBeforeReading(
  readBefore: unknown,
  drained: boolean,
  contentLength: string | null | undefined,
  maxBytes: number,
): BodyResult | undefined {
  if (readBefore !== undefined) return fromReadBody(readBefore, maxBytes);
  if (drained) return BODY_ALREADY_READ;
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > maxBytes) return tooLarge(maxBytes);
  return undefined;
}
