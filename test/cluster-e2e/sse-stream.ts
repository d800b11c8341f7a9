/**
 * A raw SSE GET for the legacy resume test: events as they arrive (id and
 * parsed data), a bounded wait for the n-th one, and an abrupt close (the
 * socket destroyed, as a dropped connection).
 */
import { request, type ClientRequest } from 'node:http';

export interface SseEvent {
  readonly id: string | undefined;
  readonly data: unknown;
}

export interface SseStream {
  readonly status: number;
  readonly events: SseEvent[];
  /** Resolves once `count` events carrying data have arrived (bounded). */
  waitFor(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** The last event id seen, data or not (a priming event has one and no data). */
  lastId(): string | undefined;
  drop(): void;
}

export function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const events: SseEvent[] = [];
    let last: string | undefined;
    let buffer = '';
    const waiters: Array<() => void> = [];
    const req: ClientRequest = request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: 'GET', headers: { accept: 'text/event-stream', ...headers }, agent: false },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id: string | undefined;
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('id:')) id = line.slice(3).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            if (id !== undefined) last = id;
            const text = data.join('\n');
            if (text.length === 0) continue;
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // Kept as text.
            }
            events.push({ id, data: parsed });
            for (const wake of waiters.splice(0)) wake();
          }
        });
        res.on('error', () => {});
        resolve({
          status: res.statusCode ?? 0,
          events,
          lastId: () => last,
          drop: () => req.destroy(),
          async waitFor(count, timeoutMs = 5_000) {
            const deadline = Date.now() + timeoutMs;
            while (events.length < count) {
              const left = deadline - Date.now();
              if (left <= 0) throw new Error(`only ${events.length} of ${count} SSE events within ${timeoutMs} ms: ${JSON.stringify(events)}`);
              await new Promise<void>((wake) => {
                const timer = setTimeout(wake, left);
                waiters.push(() => {
                  clearTimeout(timer);
                  wake();
                });
              });
            }
            return events.slice(0, count);
          },
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
