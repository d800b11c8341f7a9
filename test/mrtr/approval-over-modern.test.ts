/**
 * An authorizer's `{ ask }` on a modern tools/call, end to end through the
 * server (direct calls with modern `_meta`, and a memory connection): the
 * approval form as input_required, the retry redeemed exactly once, the
 * seed's deny details, the fixed -32602 for a state that is not this
 * request's, expiry on the server's virtual clock, and caps shared with
 * legacy parking.
 */
import { Subject, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { Peer, settle, type Message } from '../contract/helpers.js';
import { legacyInitialize, modernRpc } from '../era/modern-helpers.js';
import { APPROVE_KEY, approve, ELICIT, modern, mrtrServer, stateOf, tampered } from './modern-fixture.js';

/** Moves the virtual clock to `frame`, running only what is due by then. */
function advanceTo(virtual: VirtualTimeScheduler, frame: number): void {
  virtual.schedule(() => {}, frame - virtual.now());
  virtual.maxFrames = frame;
  virtual.flush();
}

const denyText = (detail: string) => JSON.stringify({ error: 'authorization_required', tool: 'wipe', decision: 'ask', detail });
const INVALID = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } };

function retry(state: string, inputResponses: Record<string, unknown> = approve, args: Record<string, unknown> = { what: 'disk' }) {
  return { name: 'wipe', arguments: args, requestState: state, inputResponses };
}

describe('an ASK on a modern tools/call', () => {
  test('answers input_required with the approval form; the retry with accept+approve runs the tool once', async () => {
    const { server, runs } = mrtrServer();
    const first = await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        [APPROVE_KEY]: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Wipe it?', requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] } },
        },
      },
    });
    expect(runs).toEqual([]);
    const state = stateOf(first);
    const second = await modern(server, 2, 'tools/call', retry(state), { capabilities: ELICIT });
    expect(second.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'wiped disk' }] });
    expect(second.result.isError).toBeUndefined();
    expect(runs).toEqual(['wipe disk']);
    // The ticket is spent: presenting it again asks again (a fresh ticket), never a second run.
    const replayed = await modern(server, 3, 'tools/call', retry(state), { capabilities: ELICIT });
    expect(stateOf(replayed)).not.toBe(state);
    expect(runs).toEqual(['wipe disk']);
  });

  test('concurrent retries with one approval: one run, the other is asked again', async () => {
    const { server, runs } = mrtrServer();
    const state = stateOf(await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    const [a, b] = await Promise.all([
      modern(server, 2, 'tools/call', retry(state), { capabilities: ELICIT }),
      modern(server, 3, 'tools/call', retry(state), { capabilities: ELICIT }),
    ]);
    const kinds = [a.result.resultType, b.result.resultType].sort();
    expect(kinds).toEqual(['complete', 'input_required']);
    expect(runs).toEqual(['wipe disk']);
  });

  test.each([
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'cancelled'],
    ['accept without approve', { action: 'accept', content: { approve: false } }, 'not approved'],
  ])('%s: the seed deny detail, and the tool never runs', async (_what, answer, detail) => {
    const { server, runs } = mrtrServer();
    const state = stateOf(await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    const reply = await modern(server, 2, 'tools/call', retry(state, { [APPROVE_KEY]: answer }), { capabilities: ELICIT });
    expect(reply.result).toMatchObject({ isError: true, content: [{ type: 'text', text: denyText(detail) }] });
    expect(runs).toEqual([]);
  });

  test('a retry with no answer is asked again; extra keys are ignored', async () => {
    const { server, runs } = mrtrServer();
    const state = stateOf(await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    const again = await modern(server, 2, 'tools/call', retry(state, { other: { action: 'accept' } }), { capabilities: ELICIT });
    const fresh = stateOf(again);
    expect(again.result.inputRequests[APPROVE_KEY].method).toBe('elicitation/create');
    const done = await modern(server, 3, 'tools/call', retry(fresh, { ...approve, extra: 1 }), { capabilities: ELICIT });
    expect(done.result.content[0].text).toBe('wiped disk');
    expect(runs).toEqual(['wipe disk']);
  });

  test('expiry on the server clock: at the TTL still valid, past it the "timed out" deny', async () => {
    const { server, runs } = mrtrServer({ approvalTtlMs: 1000 });
    const first = stateOf(await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'a' } }, { capabilities: ELICIT }));
    const second = stateOf(await modern(server, 2, 'tools/call', { name: 'wipe', arguments: { what: 'b' } }, { capabilities: ELICIT }));
    advanceTo(server.virtual, 999);
    const inTime = await modern(server, 3, 'tools/call', retry(first, approve, { what: 'a' }), { capabilities: ELICIT });
    expect(inTime.result.content[0].text).toBe('wiped a');
    advanceTo(server.virtual, 1001);
    const late = await modern(server, 4, 'tools/call', retry(second, approve, { what: 'b' }), { capabilities: ELICIT });
    expect(late.result).toMatchObject({ isError: true, content: [{ type: 'text', text: denyText('timed out') }] });
    expect(runs).toEqual(['wipe a']);
  });

  test('tampered, foreign (another connection), other arguments, other tool state: the fixed -32602, nothing runs', async () => {
    const { server, runs } = mrtrServer();
    const state = stateOf(await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    expect((await modern(server, 2, 'tools/call', retry(tampered(state)), { capabilities: ELICIT })).error).toStrictEqual(INVALID);
    expect((await modern(server, 3, 'tools/call', retry(state), { capabilities: ELICIT, connId: 'someone-else' })).error).toStrictEqual(INVALID);
    expect((await modern(server, 4, 'tools/call', retry(state, approve, { what: 'prod' }), { capabilities: ELICIT })).error).toStrictEqual(INVALID);
    expect((await modern(server, 5, 'tools/call', retry('not a state'), { capabilities: ELICIT })).error).toStrictEqual(INVALID);
    expect(runs).toEqual([]);
    // The authentic one still works for its owner.
    expect((await modern(server, 6, 'tools/call', retry(state), { capabilities: ELICIT })).result.content[0].text).toBe('wiped disk');
  });

  test('a state from another server (another key) is -32602', async () => {
    const other = mrtrServer({ requestStateKeys: ['a-completely-different-secret-of-32-bytes!'] });
    const state = stateOf(await modern(other.server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    const { server, runs } = mrtrServer();
    expect((await modern(server, 2, 'tools/call', retry(state), { capabilities: ELICIT })).error).toStrictEqual(INVALID);
    expect(runs).toEqual([]);
  });

  test('without a declared elicitation capability: -32021 naming it, no ticket taken', async () => {
    const { server, runs } = mrtrServer();
    const reply = await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: { sampling: {} } });
    expect(reply.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    expect(runs).toEqual([]);
  });

  test('the authorizer is asked again on the retry: allow runs, deny denies', async () => {
    const { server, runs, policy } = mrtrServer();
    const state = stateOf(await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    policy.wipe = { deny: 'frozen' };
    const denied = await modern(server, 2, 'tools/call', retry(state), { capabilities: ELICIT });
    expect(denied.result.content[0].text).toBe(JSON.stringify({ error: 'authorization_required', tool: 'wipe', decision: 'deny', detail: 'frozen' }));
    policy.wipe = 'allow';
    expect((await modern(server, 3, 'tools/call', retry(state), { capabilities: ELICIT })).result.content[0].text).toBe('wiped disk');
    expect(runs).toEqual(['wipe disk']);
  });

  test('an approved tool that then asks for input itself: its one run fails, it is not resumed on a second approval', async () => {
    const { server, runs } = mrtrServer();
    const state = stateOf(await modern(server, 1, 'tools/call', { name: 'guarded_ask' }, { capabilities: ELICIT }));
    const reply = await modern(server, 2, 'tools/call', { name: 'guarded_ask', requestState: state, inputResponses: approve }, { capabilities: ELICIT });
    expect(reply.result).toMatchObject({ resultType: 'complete', isError: true });
    expect(runs).toEqual(['guarded_ask ran']);
  });

  test('over a memory connection: a ticket is the connection\'s; it is dropped when the connection ends', async () => {
    const { server, runs } = mrtrServer();
    const peer = new Peer(server, { transport: 'memory' });
    peer.send(modernRpc(1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    const state = stateOf(await peer.waitFor((m) => m.id === 1));
    expect(peer.received.filter((m) => m.method === 'elicitation/create')).toEqual([]);
    expect(server.stats().parked).toBe(0);
    const other = new Peer(server, { transport: 'memory' });
    other.send(modernRpc(2, 'tools/call', retry(state), { capabilities: ELICIT }));
    expect((await other.waitFor((m) => m.id === 2)).error).toStrictEqual(INVALID);
    peer.send(modernRpc(3, 'tools/call', retry(state), { capabilities: ELICIT }));
    expect((await peer.waitFor((m) => m.id === 3)).result.content[0].text).toBe('wiped disk');
    peer.send(modernRpc(4, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    const left = stateOf(await peer.waitFor((m) => m.id === 4));
    peer.close();
    other.close();
    await settle();
    // Its ticket went with it: even presented under the same connection id, it is not in the ledger (asked again, no run).
    const after = await modern(server, 5, 'tools/call', retry(left), { capabilities: ELICIT, connId: peer.connId });
    expect(after.result.resultType).toBe('input_required');
    expect(runs).toEqual(['wipe disk']);
  });
});

describe('the owner on HTTP is the peer (each request is its own exchange)', () => {
  test('a ticket issued to a peer is redeemed from another HTTP exchange of that peer, never from another peer', async () => {
    const { server, runs } = mrtrServer();
    const subs = [
      server.subscribe(() => {}, 'h1', { transport: 'http', peer: 'addr:10.0.0.1' }),
      server.subscribe(() => {}, 'h2', { transport: 'http', peer: 'addr:10.0.0.1' }),
      server.subscribe(() => {}, 'h3', { transport: 'http', peer: 'addr:10.0.0.2' }),
    ];
    const state = stateOf(await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT, connId: 'h1' }));
    expect((await modern(server, 2, 'tools/call', retry(state), { capabilities: ELICIT, connId: 'h3' })).error).toStrictEqual(INVALID);
    expect((await modern(server, 3, 'tools/call', retry(state), { capabilities: ELICIT, connId: 'h2' })).result.content[0].text).toBe('wiped disk');
    expect(runs).toEqual(['wipe disk']);
    // An HTTP exchange ending does not drop the peer's tickets.
    const next = stateOf(await modern(server, 4, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT, connId: 'h1' }));
    subs[0]!.unsubscribe();
    await settle();
    expect((await modern(server, 5, 'tools/call', retry(next), { capabilities: ELICIT, connId: 'h2' })).result.content[0].text).toBe('wiped disk');
    for (const sub of subs) sub.unsubscribe();
  });
});

describe('caps shared with legacy parking', () => {
  test('a legacy parked call and a modern ticket of one peer count together', async () => {
    const { server, runs } = mrtrServer({ maxParkedElicitations: 1, maxParkedElicitationsPerPeer: 1, maxParkedElicitationsTotal: 8 });
    // A legacy connection of peer p parks a call.
    const inbound = new Subject<unknown>();
    const legacy: Message[] = [];
    const sub = server.connect('legacy-1', inbound, { peer: 'p', transport: 'memory' }).subscribe((m) => legacy.push(m));
    inbound.next(legacyInitialize('init', ELICIT));
    inbound.next({ jsonrpc: '2.0', method: 'notifications/initialized' });
    inbound.next({ jsonrpc: '2.0', id: 'l1', method: 'tools/call', params: { name: 'wipe', arguments: { what: 'legacy' } } });
    await settle();
    const asked = legacy.find((m) => m.method === 'elicitation/create');
    expect(asked).toBeDefined();
    expect(server.stats().parked).toBe(1);
    // A modern caller of the same peer on another connection holds fewer than the peer's fullest holder:
    // the peer's cap is full, so its ticket takes the parked call's slot (fair eviction across eras).
    const modernSub = server.subscribe(() => {}, 'modern-1', { peer: 'p' });
    const issued = await modern(server, 1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT, connId: 'modern-1' });
    stateOf(issued);
    await settle();
    expect(server.stats().parked).toBe(0);
    expect(JSON.parse(legacy.find((m) => m.id === 'l1')?.result.content[0].text)).toMatchObject({ decision: 'ask', detail: expect.stringMatching(/^too many elicitations pending/) });
    // Now the ticket fills the peer's one slot: a second ticket of the same holder is refused...
    const refused = await modern(server, 2, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT, connId: 'modern-1' });
    expect(refused.result).toMatchObject({ isError: true, content: [{ type: 'text', text: denyText('too many elicitations pending') }] });
    // ...and a legacy park of the same peer evicts the ticket in turn, whose retry then hears why.
    inbound.next({ jsonrpc: '2.0', id: 'l2', method: 'tools/call', params: { name: 'wipe', arguments: { what: 'legacy2' } } });
    await settle();
    expect(server.stats().parked).toBe(1);
    const late = await modern(server, 3, 'tools/call', retry(stateOf(issued)), { capabilities: ELICIT, connId: 'modern-1' });
    expect(JSON.parse(late.result.content[0].text)).toMatchObject({ decision: 'ask', detail: expect.stringMatching(/^too many elicitations pending/) });
    expect(runs).toEqual([]);
    sub.unsubscribe();
    modernSub.unsubscribe();
  });
});
