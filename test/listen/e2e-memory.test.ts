/**
 * End to end over the in-memory transport, on the real clock, with every
 * message round-tripped through JSON as a wire would: a client opens two
 * listen streams, receives the acknowledgements and tagged changes as they
 * happen, cancels one (nothing more arrives for it), and the server's
 * shutdown closes the other with its graceful result. Then nothing is held.
 */
import { firstValueFrom, filter, ReplaySubject, timeout, type Observable } from 'rxjs';
import { afterEach, describe, expect, test } from 'vitest';
import { createServer, type McpServer } from '../../lib/index.js';
import { connectInMemory, type MemoryConnection } from '../../transports/memory.js';
import { ack, cancelled, closedResult, listen, listenRegistry, promptsChanged, SUB, toolsChanged, updated, type Msg } from './harness.js';

const opened: Array<{ server: McpServer; connection: MemoryConnection }> = [];
afterEach(() => {
  for (const { server, connection } of opened.splice(0)) {
    connection.close();
    server.close();
  }
});

function start() {
  const server = createServer({ registry: listenRegistry() });
  const connection = connectInMemory(server);
  opened.push({ server, connection });
  const wire = new ReplaySubject<Msg>(256);
  connection.messages$.subscribe((message) => wire.next(JSON.parse(JSON.stringify(message)) as Msg));
  return { server, connection, wire };
}

function next(wire: Observable<Msg>, predicate: (message: Msg) => boolean): Promise<Msg> {
  return firstValueFrom(wire.pipe(filter(predicate), timeout(5000)));
}

const subscriptionOf = (message: Msg): unknown => (message.params as { _meta?: Msg } | undefined)?._meta?.[SUB];
const isReplyTo = (id: unknown) => (message: Msg) => !('method' in message) && message.id === id;

describe('subscriptions/listen end to end (memory transport)', () => {
  test('two streams, tagged changes, a cancel, and the graceful close on shutdown', async () => {
    const { server, connection, wire } = start();
    const onStream = (id: unknown) => wire.pipe(filter((m) => subscriptionOf(m) === id || isReplyTo(id)(m)));

    connection.send(listen(1, { toolsListChanged: true, resourceSubscriptions: ['mem://a', 'mem://missing'] }));
    expect(await next(onStream(1), () => true)).toEqual(ack(1, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] }));
    connection.send(listen('p', { promptsListChanged: true }));
    expect(await next(onStream('p'), () => true)).toEqual(ack('p', { promptsListChanged: true }));

    server.registry.registerTool({ name: 'added', handler: () => 'added' });
    expect(await next(wire, (m) => subscriptionOf(m) === 1 && m.method === 'notifications/tools/list_changed')).toEqual(toolsChanged(1));
    server.resourceUpdated('mem://a');
    expect(await next(wire, (m) => m.method === 'notifications/resources/updated')).toEqual(updated(1, 'mem://a'));
    server.registry.registerPrompt({ name: 'hello', get: () => 'hi' });
    expect(await next(wire, (m) => subscriptionOf(m) === 'p')).toBeDefined();

    connection.send(cancelled(1));
    server.registry.registerTool({ name: 'after-cancel', handler: () => 'x' });
    server.resourceUpdated('mem://a');
    // A later change on the other stream is the marker: by then the cancelled stream would have spoken.
    server.registry.registerPrompt({ name: 'marker', get: () => 'm' });
    const marker = await next(wire, (m) => subscriptionOf(m) === 'p' && m.method === 'notifications/prompts/list_changed');
    expect(marker).toEqual(promptsChanged('p'));
    const streamOne: Msg[] = [];
    onStream(1).subscribe((m) => streamOne.push(m));
    expect(streamOne).toEqual([
      ack(1, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] }),
      toolsChanged(1),
      updated(1, 'mem://a'),
    ]);

    server.close();
    expect(await next(wire, isReplyTo('p'))).toEqual(closedResult('p'));
    expect(server.stats()).toMatchObject({ listens: 0, inFlight: 0 });
  });

  test('the connection closing ends its streams: nothing stays counted', async () => {
    const { server, connection, wire } = start();
    connection.send(listen(1, { toolsListChanged: true, resourceSubscriptions: ['mem://a', 'mem://b'] }));
    await next(wire, (m) => subscriptionOf(m) === 1);
    expect(server.stats().listens).toBe(1);
    connection.close();
    expect(server.stats()).toMatchObject({ listens: 0, connections: 0 });
  });
});
