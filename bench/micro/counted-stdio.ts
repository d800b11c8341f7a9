/**
 * serveStdio on in-memory streams whose output only counts reply lines: the
 * micro benchmarks' wire (eras.ts, waiting-call.ts). Nothing is parsed on
 * the way out, so what is timed is the server's side alone.
 */
import { PassThrough, Writable } from 'node:stream';
import type { McpServer } from '../../lib/index.js';
import { serveStdio } from '../../transports/stdio.js';

export interface CountedStdio {
  readonly input: PassThrough;
  /** Lines written so far. */
  seen(): number;
  /** Resolves once `count` lines in all have been written. */
  until(count: number): Promise<void>;
}

export function countedStdio(server: McpServer): CountedStdio {
  const input = new PassThrough();
  let seen = 0;
  let want = 0;
  let wake: () => void = () => {};
  const output = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) seen += 1;
      if (seen >= want) wake();
      callback();
    },
  });
  serveStdio(server, { input, output });
  return {
    input,
    seen: () => seen,
    until: (count) =>
      new Promise<void>((resolve) => {
        want = count;
        wake = resolve;
        if (seen >= want) resolve();
      }),
  };
}
