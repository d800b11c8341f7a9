/**
 * A POST's event stream whose reply comes in the turn its request is fed
 * goes out as one body with a Content-Length: the priming event, what the
 * call sent before its reply, the reply, in that order, each stored for a
 * resumption as on any stream. A reply that comes later, or a stream larger
 * than the stream bound, goes on a writer: headers and priming first, the
 * rest as it comes, chunked.
 */
import { request } from 'node:http';
import { map, timer } from 'rxjs';
import { expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { closedAfterEach, openSession, virtualClock, type Served } from './helpers.js';

const { serve } = closedAfterEach();

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A POST over node:http, so the framing (Content-Length or chunked) is what the server sent. */
function rawPost(served: Served, sessionId: string, body: unknown, onHeaders?: () => void): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      served.url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId } },
      (res) => {
        onHeaders?.();
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The events of an SSE body: each as its field lines. */
function events(body: string): string[][] {
  return body
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => block.split('\n'));
}

function progressingRegistry(): Registry {
  const registry = new Registry();
  registry.registerTool({
    name: 'steps',
    handler: (_args, ctx) => {
      ctx.progress(1, 2, 'half');
      return 'done';
    },
  });
  return registry;
}

test('a reply ready in its turn: one body with a Content-Length, priming, progress and reply in order, all resumable', async () => {
  const served = await serve({ registry: progressingRegistry() });
  const sessionId = await openSession(served.url);
  const res = await rawPost(served, sessionId, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'steps', _meta: { progressToken: 't' } } });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/event-stream');
  expect(res.headers['mcp-session-id']).toBe(sessionId);
  expect(res.headers['transfer-encoding']).toBeUndefined();
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  const [priming, progress, reply, ...rest] = events(res.body);
  expect(rest).toEqual([]);
  expect(priming![0]).toMatch(/^id: p\d+_\d+$/);
  expect(priming!.slice(1)).toEqual(['retry: 1000', 'data:']);
  expect(JSON.parse(progress![1]!.slice('data: '.length))).toMatchObject({ method: 'notifications/progress', params: { progressToken: 't', progress: 1 } });
  expect(JSON.parse(reply![1]!.slice('data: '.length))).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'done' }] } });
  // Stored as on a writer's stream: resuming after the priming event replays the other two.
  const resumed = await fetch(served.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': priming![0]!.slice('id: '.length) } });
  const replayed = events(await resumed.text());
  expect(replayed.map((e) => e[0])).toEqual([progress![0], reply![0]]);
});

test('a reply that comes later: headers and priming go out first, the reply follows on the same chunked stream', async () => {
  const clock = virtualClock();
  const registry = new Registry();
  registry.registerTool({ name: 'later', handler: () => timer(50, clock.scheduler).pipe(map(() => 'late')) });
  const served = await serve({ registry, scheduler: clock.scheduler });
  const sessionId = await openSession(served.url);
  // The headers arrive before the clock moves: the stream was opened on a writer, not held for a whole body.
  const res = await rawPost(served, sessionId, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'later' } }, () => clock.advance(50));
  expect(res.headers['content-length']).toBeUndefined();
  expect(res.headers['transfer-encoding']).toBe('chunked');
  const [priming, reply, ...rest] = events(res.body);
  expect(rest).toEqual([]);
  expect(priming!.at(-1)).toBe('data:');
  expect(JSON.parse(reply![1]!.slice('data: '.length))).toMatchObject({ id: 8, result: { content: [{ type: 'text', text: 'late' }] } });
});

test('a stream ready in its turn but past the stream bound goes on a writer, whole and in order', async () => {
  const registry = new Registry();
  const big = 'x'.repeat(40_000);
  registry.registerTool({ name: 'big', handler: () => big });
  const served = await serve({ registry }, { maxStreamBufferBytes: 16_384 });
  const sessionId = await openSession(served.url);
  const res = await rawPost(served, sessionId, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'big' } });
  expect(res.headers['content-length']).toBeUndefined();
  const [priming, reply] = events(res.body);
  expect(priming!.at(-1)).toBe('data:');
  expect(JSON.parse(reply![1]!.slice('data: '.length))).toMatchObject({ id: 9, result: { content: [{ type: 'text', text: big }] } });
});
