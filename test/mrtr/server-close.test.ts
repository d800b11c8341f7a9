/**
 * server.close() ends the approvals the server holds, on the virtual clock
 * (issue 17): a modern ticket held by an HTTP peer (no connection's end
 * drops it) and a legacy parked call both go, with their expiry timers, so
 * nothing is left scheduled; stats() counts the ticket while it is held. A
 * shared (Redis) ledger keeps its tickets for the other nodes, and only this
 * process's wait on Redis ends.
 */
import { Subject } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { redisApprovalLedger } from '../../cluster/redis/approval-ledger.js';
import { clusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink, RedisReply } from '../../cluster/redis/link.js';
import type { LuaScript } from '../../cluster/redis/lua-script.js';
import { settle, type Message } from '../contract/helpers.js';
import { legacyInitialize, modernRpc } from '../era/modern-helpers.js';
import { approve, ELICIT, modern, mrtrServer, stateOf } from './modern-fixture.js';

const CLOSING = 'the server is shutting down';
const ELICITATION_TIMEOUT_MS = 5_000;
const TTL_MS = 1_000;

const denied = (detail: string) => ({ error: 'authorization_required', tool: 'wipe', decision: 'ask', detail });
const denyOf = (reply: Message) => JSON.parse(reply.result.content[0].text);

/** A legacy memory connection that advertised elicitation; what it receives is recorded. */
function legacyConnection(server: ReturnType<typeof mrtrServer>['server'], connId: string) {
  const inbound = new Subject<unknown>();
  const received: Message[] = [];
  const subscription = server.connect(connId, inbound, { transport: 'memory' }).subscribe((m) => received.push(m));
  inbound.next(legacyInitialize('init', ELICIT));
  inbound.next({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const call = (id: string, what: string) => inbound.next({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wipe', arguments: { what } } });
  return { received, subscription, call, reply: (id: string) => received.find((m) => m.id === id) };
}

/** A modern tools/call from an HTTP exchange of `peer` (the ticket's holder is the peer), the exchange then over. */
async function overHttp(server: ReturnType<typeof mrtrServer>['server'], id: number, params: Record<string, unknown>, peer = 'addr:10.0.0.1') {
  const exchange = server.subscribe(() => {}, `http-${id}`, { transport: 'http', peer });
  const reply = await modern(server, id, 'tools/call', params, { capabilities: ELICIT, connId: `http-${id}` });
  exchange.unsubscribe();
  return reply;
}

describe('server.close() with an unanswered approval of each era', () => {
  test('ends the ticket and the parked call with their timers: nothing left scheduled; stats counts the ticket, then 0', async () => {
    const { server, runs } = mrtrServer({ elicitationTimeoutMs: ELICITATION_TIMEOUT_MS, approvalTtlMs: TTL_MS });
    const ticket = stateOf(await overHttp(server, 1, { name: 'wipe', arguments: { what: 'disk' } }));
    const legacy = legacyConnection(server, 'legacy-1');
    legacy.call('l1', 'legacy');
    await settle();
    expect(legacy.received.some((m) => m.method === 'elicitation/create')).toBe(true);
    expect(server.stats()).toMatchObject({ parked: 1, approvalTickets: 1 });
    // The ticket's expiry and the parked call's elicitation timeout, nothing else.
    expect(server.virtual.actions.map((a) => a.delay).sort((a, b) => a - b)).toEqual([TTL_MS, ELICITATION_TIMEOUT_MS]);

    server.close();

    expect(server.virtual.actions).toHaveLength(0);
    expect(server.stats()).toMatchObject({ parked: 0, approvalTickets: 0 });
    // The parked call is answered, not left hanging: the deny says why.
    expect(denyOf(legacy.reply('l1'))).toEqual(denied(CLOSING));
    // The ticket is gone: its approved retry does not run the tool.
    const late = await overHttp(server, 2, { name: 'wipe', arguments: { what: 'disk' }, requestState: ticket, inputResponses: approve });
    expect(denyOf(late)).toEqual(denied(CLOSING));
    server.virtual.flush();
    expect(runs).toEqual([]);
    expect(legacy.received.filter((m) => m.id === 'l1')).toHaveLength(1);
    legacy.subscription.unsubscribe();
  });

  test('is idempotent, and a later ask of either era is denied at once, holding nothing', async () => {
    const { server, runs } = mrtrServer({ elicitationTimeoutMs: ELICITATION_TIMEOUT_MS, approvalTtlMs: TTL_MS });
    const legacy = legacyConnection(server, 'legacy-1');
    await settle();
    server.close();
    server.close();
    legacy.call('l2', 'after');
    await settle();
    expect(denyOf(legacy.reply('l2'))).toEqual(denied(CLOSING));
    expect(legacy.received.some((m) => m.method === 'elicitation/create')).toBe(false);
    expect(denyOf(await overHttp(server, 3, { name: 'wipe', arguments: { what: 'disk' } }))).toEqual(denied(CLOSING));
    expect(server.stats()).toMatchObject({ parked: 0, approvalTickets: 0 });
    expect(server.virtual.actions).toHaveLength(0);
    expect(runs).toEqual([]);
    legacy.subscription.unsubscribe();
  });
});

describe('server.close() with a shared (Redis) ledger', () => {
  /** A link whose admit succeeds and whose every other script never answers; every script run is recorded. */
  function recordingLink(): { link: RedisLink; scripts: string[] } {
    const scripts: string[] = [];
    const run = (script: LuaScript): Promise<RedisReply> => {
      scripts.push(script.name);
      // Issued at 1, expiring at 1 + TTL, Redis time 1, one outstanding, no victim, nothing expired.
      if (script.name === 'rxmcp-ledger-admit') return Promise.resolve(['admitted', 1, 1 + TTL_MS, 1, 1, '', '', []]);
      return new Promise<RedisReply>(() => {});
    };
    const unused = () => Promise.reject(new Error('not used'));
    return { scripts, link: { run, command: unused, publish: unused, subscribe: unused, close: () => Promise.resolve() } };
  }

  test("deletes no ticket in Redis (another node may redeem a peer's), but ends this process's wait on it", async () => {
    const { link, scripts } = recordingLink();
    const { server } = mrtrServer({ approvalTtlMs: TTL_MS, approvalLedger: redisApprovalLedger({ link, keys: clusterKeys('close'), timeoutMs: 500 }) });
    // A peer's ticket over HTTP, and a memory connection's ticket, whose exit asks Redis to drop it.
    stateOf(await overHttp(server, 1, { name: 'wipe', arguments: { what: 'disk' } }));
    const inbound = new Subject<unknown>();
    const received: Message[] = [];
    const connection = server.connect('memory-1', inbound, { transport: 'memory' }).subscribe((m) => received.push(m));
    inbound.next(modernRpc(2, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    await settle();
    stateOf(received.find((m) => m.id === 2));
    connection.unsubscribe();
    expect(scripts).toEqual(['rxmcp-ledger-admit', 'rxmcp-ledger-admit', 'rxmcp-ledger-drop']);
    // The drop has not answered: its fail-closed timeout is waiting on the scheduler.
    expect(server.virtual.actions.map((a) => a.delay)).toEqual([500]);
    expect(server.stats().approvalTickets).toBe(0);

    server.close();

    expect(server.virtual.actions).toHaveLength(0);
    // Nothing was asked of Redis by the close, and a new ask is refused without a round trip.
    expect(denyOf(await overHttp(server, 3, { name: 'wipe', arguments: { what: 'disk' } }))).toEqual(denied(CLOSING));
    expect(scripts).toEqual(['rxmcp-ledger-admit', 'rxmcp-ledger-admit', 'rxmcp-ledger-drop']);
  });
});
