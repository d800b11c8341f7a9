/**
 * Issue 8, finding 2: what the server keeps per connection is bounded by
 * size, not only by count. Each bound answers a clear error (or, for a
 * parked call, the machine-readable deny) and keeps nothing; what stays
 * within it still works. The heap ceilings themselves are asserted by
 * retained-memory.test.ts in a child process.
 */
import { describe, expect, test } from 'vitest';
import { ConfigError, createServer, Registry, type ServerOptions } from '../../lib/index.js';
import { retainedSize } from '../../lib/retained-size.js';
import { projectCapabilities } from '../../streams/state/capability-table.js';
import { DENY_DETAIL } from '../../lib/deny-details.js';

const DETAIL_TOO_LARGE_TO_PARK = DENY_DETAIL.tooLargeToPark;
import { InMemoryEventStore, storedEventBytes, storedSessionBytes } from '../../lib/ports/event-store.js';
import { ELICITING, Peer, answer, deniedResult, makeServer, rpc, settle } from '../contract/helpers.js';

describe('the capability table keeps a projection', () => {
  test('only elicitation form/url, sampling and roots, each as an empty object', () => {
    const junk = Array.from({ length: 1000 }, () => ({}));
    const kept = projectCapabilities({
      elicitation: { form: { junk }, url: { junk }, extra: junk },
      sampling: { context: junk },
      roots: { listChanged: true },
      experimental: { junk },
      tasks: junk,
    });
    expect(kept).toStrictEqual({ elicitation: { form: {}, url: {} }, sampling: {}, roots: {} });
    expect(retainedSize(kept, 1 << 20)).toBeLessThan(1024);
  });

  test('a capability counts only as an object, as the readers check it', () => {
    expect(projectCapabilities({ elicitation: {}, sampling: true, roots: [1] })).toStrictEqual({ elicitation: {} });
    expect(projectCapabilities({ elicitation: { form: 'yes', url: {} } })).toStrictEqual({ elicitation: { url: {} } });
    expect(projectCapabilities('nope')).toStrictEqual({});
    expect(projectCapabilities(undefined)).toStrictEqual({});
  });

  test('what a handler can ask still follows what was advertised', async () => {
    const registry = new Registry().registerTool({
      name: 'probe',
      handler: async (_args, ctx) => {
        const form = await ctx.elicit({ message: 'm', requestedSchema: { type: 'object', properties: {} } }).then(() => 'ok', (e: Error) => e.name);
        const url = await ctx.elicit({ mode: 'url', message: 'm', url: 'https://x.example', elicitationId: 'e' }).then(() => 'ok', (e: Error) => e.name);
        return `${form} ${url}`;
      },
    });
    const server = makeServer({ registry });
    const peer = new Peer(server);
    await peer.initialize({ elicitation: { url: { huge: 'x'.repeat(100_000) } } });
    peer.send(rpc(1, 'tools/call', { name: 'probe' }));
    await settle();
    // url only: form mode is refused at once; the url request is sent.
    const [request] = peer.elicitations();
    expect(request.params.mode).toBe('url');
    peer.send(answer(request.id, { action: 'decline' }));
    const reply = await peer.waitFor((m) => m.id === 1);
    expect(reply.result.content[0].text).toBe('ClientCapabilityError ok');
    peer.close();
  });
});

function askServer(options: ServerOptions = {}) {
  const runs: Record<string, unknown>[] = [];
  const registry = new Registry().registerTool({ name: 'danger', handler: (args) => (runs.push(args), 'ran') });
  const server = makeServer({ registry, authorizer: () => ({ ask: 'go?' }), ...options });
  return { server, runs };
}

describe('maxParkedCallBytes', () => {
  test('a call too big to hold is denied, not parked, and nothing is asked', async () => {
    const { server, runs } = askServer({ maxParkedCallBytes: 4096 });
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    const args = { id: 'x', pad: Array.from({ length: 200 }, () => ({})) };
    const reply = await peer.call(1, 'tools/call', { name: 'danger', arguments: args });
    expect(reply.result).toStrictEqual(deniedResult('danger', 'ask', `${DETAIL_TOO_LARGE_TO_PARK} (max 4096 bytes)`));
    expect(peer.elicitations()).toEqual([]);
    expect(server.stats().parked).toBe(0);
    expect(runs).toEqual([]);
    peer.close();
  });

  test('the request counts whole: a big _meta or id is as heavy as big arguments', async () => {
    const { server } = askServer({ maxParkedCallBytes: 4096 });
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    const bigId = 'i'.repeat(5000);
    const byId = await peer.call(bigId, 'tools/call', { name: 'danger', arguments: {} });
    expect(byId.result.content[0].text).toContain(DETAIL_TOO_LARGE_TO_PARK);
    const byMeta = await peer.call(2, 'tools/call', { name: 'danger', arguments: {}, _meta: { note: 'm'.repeat(5000) } });
    expect(byMeta.result.content[0].text).toContain(DETAIL_TOO_LARGE_TO_PARK);
    expect(server.stats().parked).toBe(0);
    peer.close();
  });

  test('a call within the bound parks, and the approval runs it with its exact arguments', async () => {
    const { server, runs } = askServer({ maxParkedCallBytes: 4096 });
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    const args = { id: 'note-7', tags: ['a', 'b'], nested: { n: 1.5 } };
    peer.send(rpc(1, 'tools/call', { name: 'danger', arguments: args }));
    await settle();
    const [request] = peer.elicitations();
    expect(server.stats().parked).toBe(1);
    peer.send(answer(request.id, { action: 'accept', content: { approve: true } }));
    const reply = await peer.waitFor((m) => m.id === 1);
    expect(reply.result.content[0].text).toBe('ran');
    expect(runs).toStrictEqual([args]);
    peer.close();
  });

  test('the default is 64 KiB', async () => {
    const { server } = askServer();
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    const reply = await peer.call(1, 'tools/call', { name: 'danger', arguments: { pad: 'p'.repeat(40_000) } });
    expect(reply.result.content[0].text).toContain(`${DETAIL_TOO_LARGE_TO_PARK} (max 65536 bytes)`);
    peer.close();
  });
});

describe('retainedSize', () => {
  test('charges the parsed shape, not the wire: 3 bytes of "{}," cost far more than 3', () => {
    const wire = JSON.stringify(Array.from({ length: 1000 }, () => ({})));
    expect(retainedSize(JSON.parse(wire), Infinity)).toBeGreaterThan(20 * wire.length);
    expect(retainedSize('abc', Infinity)).toBeGreaterThanOrEqual(6);
  });

  test('stops at the limit, whatever the size or depth of the value', () => {
    let deep: unknown = [];
    for (let i = 0; i < 1_000_000; i += 1) deep = [deep];
    expect(retainedSize(deep, 10_000)).toBeGreaterThan(10_000);
    const wide = new Array(5_000_000).fill(0);
    expect(retainedSize(wide, 10_000)).toBeGreaterThan(10_000);
    const manyKeys = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, {}]));
    expect(retainedSize(manyKeys, 10_000)).toBeGreaterThan(10_000);
    expect(retainedSize({ a: [1, 'x', null, true] }, 10_000)).toBeLessThan(1000);
  });
});

const READABLE = () =>
  new Registry()
    .registerResource({ uri: 'mem://a', name: 'a', read: () => 'A' })
    .registerResourceTemplate({ uriTemplate: 'mem://t/{id}', name: 't', read: () => 'T' });

describe('resources/subscribe is bounded', () => {
  test('a URI the server does not serve is -32602 and is not kept', async () => {
    const server = makeServer({ registry: READABLE() });
    const peer = new Peer(server);
    const reply = await peer.call(1, 'resources/subscribe', { uri: 'mem://nothing' });
    expect(reply.error).toStrictEqual({ code: -32602, message: 'Resource not found: mem://nothing', data: { uri: 'mem://nothing' } });
    expect(server.stats().resourceSubscriptions).toBe(0);
    expect((await peer.call(2, 'resources/subscribe', { uri: 'mem://t/42' })).result).toStrictEqual({});
    expect((await peer.call(3, 'resources/subscribe', { uri: 'mem://a' })).result).toStrictEqual({});
    expect(server.stats().resourceSubscriptions).toBe(2);
    peer.close();
  });

  test('a URI past maxSubscriptionUriLength is -32602, before the authorizer sees it', async () => {
    const seen: unknown[] = [];
    const server = makeServer({ registry: READABLE(), maxSubscriptionUriLength: 64, readAuthorizer: (_m, a) => (seen.push(a), 'allow') });
    const peer = new Peer(server);
    const long = `mem://t/${'x'.repeat(57)}`;
    const reply = await peer.call(1, 'resources/subscribe', { uri: long });
    expect(reply.error).toStrictEqual({
      code: -32602,
      message: 'resources/subscribe uri is longer than 64 characters',
      data: { maxSubscriptionUriLength: 64 },
    });
    expect(seen).toEqual([]);
    expect((await peer.call(2, 'resources/subscribe', { uri: long.slice(0, 64) })).result).toStrictEqual({});
    peer.close();
  });

  test('per connection: past maxSubscriptionsPerConnection -32602; a repeat costs nothing; unsubscribe frees a place', async () => {
    const server = makeServer({ registry: READABLE(), maxSubscriptionsPerConnection: 3 });
    const peer = new Peer(server);
    for (const id of [1, 2, 3, 1]) expect((await peer.call(`s${id}-${Math.random()}`, 'resources/subscribe', { uri: `mem://t/${id}` })).result).toStrictEqual({});
    const refused = await peer.call(9, 'resources/subscribe', { uri: 'mem://t/4' });
    expect(refused.error).toStrictEqual({
      code: -32602,
      message: 'too many resource subscriptions on this connection (max 3)',
      data: { uri: 'mem://t/4' },
    });
    await peer.call(10, 'resources/unsubscribe', { uri: 'mem://t/2' });
    expect((await peer.call(11, 'resources/subscribe', { uri: 'mem://t/4' })).result).toStrictEqual({});
    server.resourceUpdated('mem://t/4');
    expect(peer.notifications('notifications/resources/updated')).toHaveLength(1);
    peer.close();
  });

  test('per server: past maxSubscriptionsTotal -32602; a connection leaving gives its places back', async () => {
    const server = makeServer({ registry: READABLE(), maxSubscriptionsPerConnection: 2, maxSubscriptionsTotal: 3 });
    const a = new Peer(server);
    const b = new Peer(server);
    await a.call(1, 'resources/subscribe', { uri: 'mem://t/1' });
    await a.call(2, 'resources/subscribe', { uri: 'mem://t/2' });
    await b.call(1, 'resources/subscribe', { uri: 'mem://t/1' });
    const refused = await b.call(2, 'resources/subscribe', { uri: 'mem://t/2' });
    expect(refused.error.message).toBe('too many resource subscriptions on this server (max 3)');
    expect(server.stats().resourceSubscriptions).toBe(3);
    a.close();
    expect(server.stats().resourceSubscriptions).toBe(1);
    expect((await b.call(3, 'resources/subscribe', { uri: 'mem://t/2' })).result).toStrictEqual({});
    b.close();
    expect(server.stats().resourceSubscriptions).toBe(0);
  });
});

describe('the new options are validated', () => {
  test.each(['maxParkedCallBytes', 'maxSubscriptionsPerConnection', 'maxSubscriptionsTotal', 'maxSubscriptionUriLength'])(
    '%s must be a positive integer',
    (option) => {
      for (const bad of [0, -1, 1.5, '8', Infinity]) {
        expect(() => createServer({ [option]: bad } as ServerOptions)).toThrow(ConfigError);
      }
      expect(() => createServer({ [option]: 1 } as ServerOptions)).not.toThrow();
    },
  );

  test('maxSubscriptionsPerConnection may not exceed maxSubscriptionsTotal', () => {
    expect(() => createServer({ maxSubscriptionsPerConnection: 5, maxSubscriptionsTotal: 4 })).toThrow(/maxSubscriptionsPerConnection \(5\) may not exceed maxSubscriptionsTotal \(4\)/);
  });
});

describe('InMemoryEventStore counts everything it holds', () => {
  test('an event costs its data, its id and its entry; a session its id and its log; both go back on delete', () => {
    const store = new InMemoryEventStore();
    const id = store.append('sess', 'p1', 'abc');
    expect(storedEventBytes('p1', id, 'abc')).toBeGreaterThan('abc'.length + id.length);
    expect(store.size()).toEqual({ events: 1, bytes: storedSessionBytes('sess') + storedEventBytes('p1', id, 'abc'), sessions: 1 });
    store.deleteSession('sess');
    expect(store.size()).toEqual({ events: 0, bytes: 0, sessions: 0 });
  });

  test('data outside ASCII counts two bytes a character', () => {
    expect(storedEventBytes('p', 'p_1', 'é'.repeat(100)) - storedEventBytes('p', 'p_1', 'e'.repeat(100))).toBe(100);
  });

  test('maxBytes bounds the overhead too: many empty events cannot pile up under a byte cap', () => {
    const store = new InMemoryEventStore({ maxBytes: 10_000, maxEvents: 1_000_000, maxEventsPerSession: 1_000_000 });
    for (let i = 0; i < 10_000; i += 1) store.append('s', 'g1', null);
    expect(store.size().bytes).toBeLessThanOrEqual(10_000);
    expect(store.size().events).toBeLessThan(100);
  });
});
