/**
 * A GET SSE reader that never reads, and the cut-off it must meet: the
 * shared half of the slow-reader tests (test/http/bounds, test/hostile/
 * large-sse-replies), which differ only in what they push and how long the
 * server waits.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { expect } from 'vitest';
import { eventually, type Served, type virtualClock } from './helpers.js';

/** A logger that keeps every warning's message, for asserting on the cut-off. */
export function warningsLogger(): { warnings: string[]; logger: { debug(): void; info(): void; error(): void; warn(obj: unknown, msg?: string): void } } {
  const warnings: string[] = [];
  return { warnings, logger: { debug() {}, info() {}, error() {}, warn: (_obj: unknown, msg?: string) => void warnings.push(msg ?? '') } };
}

/** Opens the GET stream and pauses it once the headers are in; `destroy` lets go of both ends. */
export async function pausedReader(served: Served, headers: Record<string, string>): Promise<{ destroy(): void }> {
  let response: IncomingMessage | undefined;
  const req: ClientRequest = httpRequest({ host: '127.0.0.1', port: served.http.port, path: '/mcp', headers });
  const gotResponse = new Promise<void>((resolve) => req.on('response', (res) => {
    response = res;
    res.pause(); // never read
    resolve();
  }));
  req.on('error', () => undefined);
  req.end();
  await gotResponse;
  return {
    destroy() {
      response?.destroy();
      req.destroy();
    },
  };
}

/**
 * Open until a full stall period has passed on the server's clock, then cut
 * off at the first check that finds no byte taken since the one before (one
 * or two periods in), with the warning; the session itself survives, the
 * messages it missed are in the event store for a resumption.
 */
export async function expectCutOffAfterStall(served: Served, clock: ReturnType<typeof virtualClock>, stallMs: number, warnings: readonly string[]): Promise<void> {
  clock.advance(stallMs - 1);
  expect(served.http.handler.stats().openStreams).toBe(1);
  clock.advance(1);
  if (served.http.handler.stats().openStreams === 1) clock.advance(stallMs);
  await eventually(() => served.http.handler.stats().openStreams === 0);
  expect(warnings).toContain('SSE reader too slow: stream cut off');
  expect(served.http.handler.stats().sessions).toBe(1);
}
