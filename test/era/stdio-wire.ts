/**
 * One stdio connection on in-process streams (serveStdio over PassThroughs),
 * read a line at a time: the shape every modern stdio test opens the same way.
 * Closing it (ending the input and waiting for the transport to close) is
 * pushed onto the caller's `closers`, which its afterEach drains.
 */
import { PassThrough } from 'node:stream';
import { serveStdio } from '../../transports/index.js';
import type { Message } from '../contract/helpers.js';
import { within } from '../hostile/demo-process.js';

type StdioServer = Parameters<typeof serveStdio>[0];

export interface StdioWire {
  /** Writes one message as a JSON line. */
  readonly send: (message: unknown) => void;
  /** The next line the server wrote (5 s at most). */
  readonly next: () => Promise<Message>;
  /** Every line the server wrote so far. */
  readonly lines: Message[];
}

export function stdioWire(
  server: StdioServer,
  closers: Array<() => Promise<void> | void>,
  options: { readonly connId?: string; readonly afterClose?: () => void } = {},
): StdioWire {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Message[] = [];
  let wake: (() => void) | undefined;
  output.on('data', (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l)));
    wake?.();
  });
  const handle = serveStdio(server, options.connId === undefined ? { input, output } : { input, output, connId: options.connId });
  closers.push(async () => {
    input.end();
    await within(handle.closed, 5000, 'stdio close');
    options.afterClose?.();
  });
  let read = 0;
  const next = (): Promise<Message> =>
    within(
      (async () => {
        while (read >= lines.length) await new Promise<void>((resolve) => (wake = resolve));
        return lines[read++]!;
      })(),
      5000,
      'a stdio line',
    );
  return { send: (m: unknown) => input.write(`${JSON.stringify(m)}\n`), next, lines };
}
