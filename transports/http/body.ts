/**
 * Reading a POST body: at most `maxBytes` (a larger declared or streamed body
 * is a 413, and the rest is not read), then JSON. Undecodable bytes are the
 * contract's -32700 with `id: null`, as a 400. A read error of the request
 * stream is passed on as is.
 * It calls back rather than resolving a Promise: the hot path of every
 * POST should not pay for one.
 */
import type { IncomingMessage } from 'node:http';
import { parseError, transportRefusal } from '../../lib/errors.js';

export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: 400 | 413; readonly body: unknown };

function tooLarge(maxBytes: number): BodyResult {
  return { ok: false, status: 413, body: transportRefusal(`Payload Too Large: the body limit is ${maxBytes} bytes`) };
}

function decode(bytes: Buffer): BodyResult {
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, status: 400, body: parseError(detail) };
  }
}

/** One body being collected; its listeners go when it is done. */
class BodyReader {
  private first: Buffer | undefined;
  private rest: Buffer[] | undefined;
  private size = 0;

  constructor(
    private readonly req: IncomingMessage,
    private readonly maxBytes: number,
    private readonly done: (result: BodyResult) => void,
    private readonly failed: (error: Error) => void,
  ) {
    req.on('data', this.onData);
    req.on('end', this.onEnd);
    req.on('error', this.onError);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.cleanup();
      this.done(tooLarge(this.maxBytes));
      return;
    }
    if (this.first === undefined) this.first = chunk;
    else (this.rest ??= [this.first]).push(chunk);
  };

  private readonly onEnd = (): void => {
    this.cleanup();
    const bytes = this.rest !== undefined ? Buffer.concat(this.rest, this.size) : (this.first ?? Buffer.alloc(0));
    this.done(decode(bytes));
  };

  private readonly onError = (error: Error): void => {
    this.cleanup();
    this.failed(error);
  };

  private cleanup(): void {
    this.req.off('data', this.onData);
    this.req.off('end', this.onEnd);
    this.req.off('error', this.onError);
  }
}

export function readJsonBody(
  req: IncomingMessage,
  maxBytes: number,
  done: (result: BodyResult) => void,
  failed: (error: Error) => void,
): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    done(tooLarge(maxBytes));
    return;
  }
  new BodyReader(req, maxBytes, done, failed);
}

