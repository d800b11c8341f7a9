/**
 * Reading a POST body off a fetch `Request`: at most `maxBytes` (a larger
 * declared or streamed body is a 413, and the rest is cancelled, not read),
 * then JSON (body.ts). A body a middleware already read is passed in as it
 * left it; a body already used with nothing passed in is a clear 500, never
 * a wait.
 */
import { decodeJson, settledBeforeReading, tooLarge, type BodyResult } from './body.js';
import type { RequestHead } from './exchange.js';

/** A fetch request as the router sees it: its head, the Request, and a body read before the handler, if any. */
export interface FetchRequest extends RequestHead {
  readonly request: Request;
  readonly body: unknown;
  /** The client's address when the runtime gave one (FetchHandleOptions.remoteAddress); peerOf reads it. */
  readonly socket: { readonly remoteAddress: string | undefined };
}

const decoder = new TextDecoder();

async function collect(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number): Promise<BodyResult> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      reader.cancel().catch(() => undefined);
      return tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return decodeJson(decoder.decode(chunks[0]));
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return decodeJson(decoder.decode(bytes));
}

export function readFetchBody(
  req: FetchRequest,
  maxBytes: number,
  done: (result: BodyResult) => void,
  failed: (error: Error) => void,
): void {
  const { request } = req;
  const settled = settledBeforeReading(req.body, request.bodyUsed, request.headers.get('content-length'), maxBytes);
  if (settled !== undefined) return done(settled);
  if (request.body === null) return done(decodeJson(''));
  collect(request.body.getReader(), maxBytes).then(done, (error: unknown) =>
    failed(error instanceof Error ? error : new Error(String(error))),
  );
}
