/**
 * What test_reconnection's description promises over streamable HTTP
 * (SEP-1699): a client whose POST stream drops mid-call resumes it with
 * Last-Event-ID and gets the reply there. The server's clock is virtual, so
 * the call is certain to be still running when the stream drops.
 */
import { VirtualTimeScheduler } from 'rxjs';
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServerHandle } from '../../transports/http/serve.js';
import { createEverythingServer } from '../../examples/everything/server.js';

interface SseEvent {
  id?: string;
  data: string;
}

/** Reads SSE events off a response body until `until` says stop or the body ends. */
async function readEvents(body: ReadableStream<Uint8Array>, until: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: SseEvent = { data: '' };
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) event.id = line.slice(3).trim();
          else if (line.startsWith('data:')) event.data += line.slice(5).trim();
        }
        if (event.id !== undefined || event.data !== '') events.push(event);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

let http: HttpServerHandle | undefined;

afterEach(async () => {
  await http?.close();
  http = undefined;
});

test('a POST stream lost mid-call is resumed with Last-Event-ID, and the reply comes on the resumed stream', async () => {
  const scheduler = new VirtualTimeScheduler();
  const server = createEverythingServer({ scheduler, stepDelayMs: 50 });
  http = await serveHttp(server, { requireAuthorization: true });
  const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(http!.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
      signal,
    });

  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const session = { 'Mcp-Session-Id': init.headers.get('mcp-session-id')!, 'MCP-Protocol-Version': '2025-11-25' };
  await init.body?.cancel();
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);

  const abort = new AbortController();
  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }, session, abort.signal);
  expect(call.headers.get('content-type')).toBe('text/event-stream');
  const [priming] = await readEvents(call.body!, (events) => events.length >= 1);
  expect(priming).toEqual({ id: expect.any(String), data: '' });
  abort.abort();
  await settle();

  scheduler.maxFrames = 50;
  scheduler.flush(); // the tool's step passes while no stream is open
  await settle();

  const resumed = await fetch(http.url, { headers: { Accept: 'text/event-stream', 'Last-Event-ID': priming!.id!, ...session } });
  expect(resumed.status).toBe(200);
  const events = await readEvents(resumed.body!, (seen) => seen.some((e) => e.data !== ''));
  expect(events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data))).toEqual([
    { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Reconnection test completed successfully' }] } },
  ]);
});
