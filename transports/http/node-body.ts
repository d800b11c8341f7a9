/**
 * Reading a POST body off a `node:http` request: at most `maxBytes` (a
 * larger declared or streamed body is a 413, and the rest is not read), then
 * JSON (body.ts). A body a parser before us already read (`req.body`, as
 * Express's and most node frameworks' parsers leave it) is taken as it is;
 * a stream drained with nothing left is a clear 500, never a wait for an
 * end that already came. A read error of the request stream is passed on as is.
 * It calls back rather than resolving a Promise: the hot path of every
 * POST should not pay for one.
 */
import type { IncomingMessage } from 'node:http';
import { decodeJson, settledBeforeReading, tooLarge, type BodyResult } from './body.js';

/** A request a framework may have read the body of already. */
export interface NodeRequest extends IncomingMessage {
  body?: unknown;
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
    this.done(decodeJson(bytes.toString('utf8')));
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

export function readNodeBody(
  req: NodeRequest,
  maxBytes: number,
  done: (result: BodyResult) => void,
  failed: (error: Error) => void,
): void {
  const settled = settledBeforeReading(req.body, req.readableEnded, req.headers['content-length'], maxBytes);
  if (settled !== undefined) return done(settled);
  new BodyReader(req, maxBytes, done, failed);
}

