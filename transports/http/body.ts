/**
 * Reading a POST body: at most `maxBytes` (a larger declared or streamed body
 * is a 413, and the rest is not read), then JSON. Undecodable bytes are the
 * contract's -32700 with `id: null`, as a 400.
 */
import type { IncomingMessage } from 'node:http';
import { parseError, transportRefusal } from '../../lib/errors.js';

export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: 400 | 413; readonly body: unknown };

function tooLarge(maxBytes: number): BodyResult {
  return { ok: false, status: 413, body: transportRefusal(`Payload Too Large: the body limit is ${maxBytes} bytes`) };
}

/** Collects the body up to the limit; `undefined` when it went over. */
function collect(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return tooLarge(maxBytes);
  const bytes = await collect(req, maxBytes);
  if (bytes === undefined) return tooLarge(maxBytes);
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, status: 400, body: parseError(detail) };
  }
}
