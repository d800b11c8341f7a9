/**
 * A tiny bridge from node:http to a fetch handler, for the tests: the node
 * request becomes a `Request` (its body streamed, its signal aborted when
 * the client goes away before the answer is done), the `Response` is
 * written back, its body read chunk by chunk and cancelled if the client
 * goes away. Backpressure is not modelled: it is a test bridge.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

export function nodeToFetch(fetchHandler: (request: Request) => Promise<Response>): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const method = req.method ?? 'GET';
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
      method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
      duplex: 'half',
      signal: abort.signal,
    } as RequestInit);
    fetchHandler(request)
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (response.body === null) return void res.end();
        res.flushHeaders();
        const reader = response.body.getReader();
        res.on('close', () => void reader.cancel().catch(() => undefined));
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
        res.end();
      })
      .catch(() => res.destroy());
  };
}
