/**
 * The askWithoutElicitation option: an authorizer's `{ ask }` on a modern
 * tools/call whose request declared no (form) elicitation is -32021 by
 * default, or with 'deny' the very deny result the legacy path gives a
 * connection without elicitation (plus the modern stamping), with no
 * approval ticket taken; an ask with elicitation declared is still an
 * input_required round, and the legacy era is the same under either value.
 */
import { Subject } from 'rxjs';
import { afterEach, describe, expect, test } from 'vitest';
import type { ServerOptions } from '../../lib/index.js';
import { serveHttp } from '../../transports/index.js';
import { ApprovalCounts } from '../../lib/approval-counts.js';
import { MemoryApprovalLedger, type ApprovalLedgerSetup } from '../../lib/ports/approval-ledger.js';
import { settle, type Message } from '../contract/helpers.js';
import { legacyInitialize, modernRpc, SERVER_INFO } from '../era/modern-helpers.js';
import { stdioWire } from '../era/stdio-wire.js';
import { modernPost } from '../http-modern/helpers.js';
import { ELICIT, modern, mrtrServer, stateOf } from './modern-fixture.js';

const DENY_TEXT = JSON.stringify({
  error: 'authorization_required',
  tool: 'wipe',
  decision: 'ask',
  detail: 'client cannot be asked (no elicitation capability)',
  prompt: 'Wipe it?',
});
const WIPE = { name: 'wipe', arguments: { what: 'disk' } };

/** mrtrServer with its approval ledger in reach, so a test can see whether a ticket was ever taken. */
function ledgeredServer(options: ServerOptions = {}) {
  let counts: ApprovalCounts | undefined;
  let ledger: MemoryApprovalLedger | undefined;
  const approvalLedger = (setup: ApprovalLedgerSetup) => {
    counts = new ApprovalCounts(setup.caps);
    ledger = new MemoryApprovalLedger({ counts, scheduler: setup.scheduler, ttlMs: setup.ttlMs, report: setup.report });
    return ledger;
  };
  const built = mrtrServer({ approvalLedger, ...options });
  const events: Message[] = [];
  built.server.events$.subscribe((event) => events.push(event));
  const tickets = () => ({ held: counts!.total(), outstanding: ledger!.outstanding() });
  return { ...built, tickets, events };
}

/** The reply a legacy connection that initialized with `capabilities` gets for WIPE: the answer, or the elicitation/create it was sent. */
async function legacyAsk(server: ReturnType<typeof mrtrServer>['server'], capabilities: Record<string, unknown>) {
  const inbound = new Subject<unknown>();
  const received: Message[] = [];
  const sub = server.connect(`legacy-${Math.random()}`, inbound, { transport: 'memory' }).subscribe((m) => received.push(m));
  inbound.next(legacyInitialize('init', capabilities));
  inbound.next({ jsonrpc: '2.0', method: 'notifications/initialized' });
  inbound.next({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: WIPE });
  await settle();
  sub.unsubscribe();
  return { reply: received.find((m) => m.id === 'call'), asked: received.filter((m) => m.method === 'elicitation/create') };
}

describe("askWithoutElicitation: 'deny'", () => {
  test.each([
    ['no capabilities at all', {}],
    ['other capabilities only', { sampling: {}, roots: {} }],
    ['elicitation in url mode only', { elicitation: { url: {} } }],
  ])('%s: the legacy deny with the prompt, stamped modern; the tool never runs, no ticket is taken', async (_what, capabilities) => {
    const { server, runs, tickets, events } = ledgeredServer({ askWithoutElicitation: 'deny' });
    const reply = await modern(server, 1, 'tools/call', WIPE, { capabilities });
    expect(reply).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: DENY_TEXT }],
        isError: true,
        _meta: { [SERVER_INFO]: { name: 'rxmcp', version: expect.any(String) } },
      },
    });
    expect(runs).toEqual([]);
    expect(tickets()).toEqual({ held: 0, outstanding: 0 });
    expect(events.filter((e) => String(e.type).startsWith('approval_'))).toEqual([]);
  });

  test('is exactly what the legacy path answers a connection without elicitation, plus resultType and serverInfo', async () => {
    const { server } = ledgeredServer({ askWithoutElicitation: 'deny', name: 'ops', serverVersion: '9.9.9' });
    const legacy = await legacyAsk(server, {});
    const reply = await modern(server, 1, 'tools/call', WIPE, { capabilities: {} });
    const { resultType, _meta, ...rest } = reply.result;
    expect(rest).toStrictEqual(legacy.reply.result);
    expect(resultType).toBe('complete');
    expect(_meta).toStrictEqual({ [SERVER_INFO]: { name: 'ops', version: '9.9.9' } });
  });

  test('an ask with elicitation declared is still an input_required round (and that does take a ticket)', async () => {
    const { server, runs, tickets } = ledgeredServer({ askWithoutElicitation: 'deny' });
    const first = await modern(server, 1, 'tools/call', WIPE, { capabilities: ELICIT });
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { 'rxmcp.approve': { method: 'elicitation/create' } } });
    expect(tickets()).toEqual({ held: 1, outstanding: 1 });
    const state = stateOf(first);
    const ran = await modern(server, 2, 'tools/call', { ...WIPE, requestState: state, inputResponses: { 'rxmcp.approve': { action: 'accept', content: { approve: true } } } }, { capabilities: ELICIT });
    expect(ran.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'wiped disk' }] });
    expect(runs).toEqual(['wipe disk']);
    expect(tickets()).toEqual({ held: 0, outstanding: 0 });
  });
});

describe.each([
  ['unset (the default)', {}],
  ["'missing-capability'", { askWithoutElicitation: 'missing-capability' as const }],
])('askWithoutElicitation %s', (_what, options) => {
  test('-32021 naming elicitation; the tool never runs, no ticket is taken', async () => {
    const { server, runs, tickets } = ledgeredServer(options);
    const reply = await modern(server, 1, 'tools/call', WIPE, { capabilities: { sampling: {} } });
    expect(reply.result).toBeUndefined();
    expect(reply.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    expect(runs).toEqual([]);
    expect(tickets()).toEqual({ held: 0, outstanding: 0 });
  });
});

describe('the legacy era is the same under either value', () => {
  test.each([[undefined], ['missing-capability' as const], ['deny' as const]])('askWithoutElicitation %s', async (value) => {
    const { server, runs } = mrtrServer(value === undefined ? {} : { askWithoutElicitation: value });
    const without = await legacyAsk(server, {});
    expect(without.asked).toEqual([]);
    expect(without.reply).toStrictEqual({ jsonrpc: '2.0', id: 'call', result: { content: [{ type: 'text', text: DENY_TEXT }], isError: true } });
    const withElicitation = await legacyAsk(server, ELICIT);
    expect(withElicitation.reply).toBeUndefined();
    expect(withElicitation.asked).toEqual([expect.objectContaining({ method: 'elicitation/create', params: expect.objectContaining({ message: 'Wipe it?' }) })]);
    expect(runs).toEqual([]);
  });
});

describe('over a real transport', () => {
  const closers: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (closers.length > 0) await closers.pop()!();
  });

  test('stdio: the deny with "deny", -32021 by default; no request is ever sent to the client', async () => {
    const denying = ledgeredServer({ askWithoutElicitation: 'deny' });
    const strict = ledgeredServer();
    const a = stdioWire(denying.server, closers, { connId: 'stdio-deny' });
    const b = stdioWire(strict.server, closers, { connId: 'stdio-strict' });
    a.send(modernRpc(1, 'tools/call', WIPE, { capabilities: {} }));
    b.send(modernRpc(1, 'tools/call', WIPE, { capabilities: {} }));
    const denied = await a.next();
    const refused = await b.next();
    expect(denied).toMatchObject({ id: 1, result: { resultType: 'complete', isError: true, content: [{ type: 'text', text: DENY_TEXT }] } });
    expect(refused).toMatchObject({ id: 1, error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } } });
    expect([...a.lines, ...b.lines].filter((m) => 'method' in m)).toEqual([]);
    expect([denying.tickets(), strict.tickets()]).toEqual([{ held: 0, outstanding: 0 }, { held: 0, outstanding: 0 }]);
    expect([...denying.runs, ...strict.runs]).toEqual([]);
  });

  test('Streamable HTTP: the deny is a 200 result with "deny", where the default is the 400 of -32021', async () => {
    const statuses: Record<string, { status: number; body: Message }> = {};
    for (const value of ['deny', 'missing-capability'] as const) {
      const { server, tickets } = ledgeredServer({ askWithoutElicitation: value });
      const http = await serveHttp(server, { port: 0, idleSocketTimeoutMs: 3_600_000 });
      closers.push(async () => {
        await http.close();
        server.close();
      });
      const response = await modernPost(http.url, 7, 'tools/call', WIPE, { capabilities: {}, accept: 'application/json' });
      statuses[value] = { status: response.status, body: await response.json() };
      expect(tickets()).toEqual({ held: 0, outstanding: 0 });
    }
    expect(statuses.deny).toMatchObject({ status: 200, body: { id: 7, result: { resultType: 'complete', isError: true, content: [{ type: 'text', text: DENY_TEXT }] } } });
    expect(statuses['missing-capability']).toMatchObject({ status: 400, body: { id: 7, error: { code: -32021 } } });
  });
});
