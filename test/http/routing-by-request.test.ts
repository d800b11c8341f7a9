/**
 * A message the core tagged with its request goes on that request's POST
 * stream whatever async context it was produced in: here a progress
 * notification emitted from the server's virtual clock, which runs the
 * tool's timer from the test's own context, not the POST's.
 */
import { map, timer } from 'rxjs';
import { afterEach, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { openSession, serve, SseReader, virtualClock, type Served } from './helpers.js';

let served: Served | undefined;
const readers: SseReader[] = [];

afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.cancel();
  await served?.close();
  served = undefined;
});

function post(url: string, sessionId: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
    body: JSON.stringify(body),
  });
}

test('progress produced on the virtual clock goes on the call\'s own stream, before its reply; nothing reaches the GET stream', async () => {
  const clock = virtualClock();
  const registry = new Registry();
  registry.registerTool({
    name: 'slow',
    handler: (_args, ctx) =>
      timer(100, clock.scheduler).pipe(
        map(() => {
          ctx.progress(1, 2, 'half');
          return 'done';
        }),
      ),
  });
  served = await serve({ registry, scheduler: clock.scheduler });
  const sessionId = await openSession(served.url);
  const standalone = new SseReader(await fetch(served.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } }));
  readers.push(standalone);
  expect((await standalone.next()).data).toBe('');
  const call = new SseReader(
    await post(served.url, sessionId, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 'tok' } } }),
  );
  readers.push(call);
  expect((await call.next()).data).toBe('');
  clock.advance(100);
  expect((await call.nextMessage()).message).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'tok', progress: 1 } });
  expect((await call.nextMessage()).message).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'done' }] } });
  expect(await call.untilEnd()).toBe(true);
  served.server.notify('notifications/tools/list_changed');
  expect((await standalone.nextMessage()).message.method).toBe('notifications/tools/list_changed');
});
