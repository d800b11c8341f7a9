/**
 * RedisApprovalLedger fails closed: a Redis error, no answer within
 * timeoutMs (on the virtual clock), or a reply not of the script's shape is
 * logged and answered as a deny, never a ticket and never a throw out of the
 * pipeline; through a server, the tool does not run.
 */
import { firstValueFrom, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { redisApprovalLedger } from '../../cluster/redis/approval-ledger.js';
import { clusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink, RedisReply } from '../../cluster/redis/link.js';
import { createServer, Registry } from '../../lib/index.js';
import { modernRpc } from '../era/modern-helpers.js';
import { recordingLogger, redisLedgerOn } from './ledger-fixture.js';

const CAPS = { maxPerHolder: 2, maxPerPeer: 4, maxTotal: 8 };
const UNAVAILABLE = 'approval store unavailable (try again later)';
const HASH = 'A'.repeat(43);

function fakeLink(run: () => Promise<RedisReply>): RedisLink {
  return {
    run,
    command: () => Promise.reject(new Error('not used')),
    publish: () => Promise.reject(new Error('not used')),
    subscribe: () => Promise.reject(new Error('not used')),
    close: () => Promise.resolve(),
  };
}

function ledgerReplying(reply: () => Promise<RedisReply>, scheduler?: VirtualTimeScheduler) {
  const { logger, errors } = recordingLogger();
  const ledger = redisLedgerOn(fakeLink(reply), 'failures', CAPS, 1000, { timeoutMs: 500 }, () => {}, logger, scheduler);
  return { ledger, errors };
}

async function allOps(reply: () => Promise<RedisReply>) {
  const { ledger, errors } = ledgerReplying(reply);
  const admit = await firstValueFrom(ledger.admit({ holder: 'a', peer: 'p' }));
  const take = await firstValueFrom(ledger.take('t1'));
  const reissue = await firstValueFrom(ledger.reissue('t1'));
  return { admit, take, reissue, errors };
}

describe('a failing Redis: deny, log, never throw', () => {
  test.each<[string, () => Promise<RedisReply>]>([
    ['an error', () => Promise.reject(new Error('ECONNREFUSED'))],
    ['a reply of another shape', () => Promise.resolve('OK')],
    ['an unknown status', () => Promise.resolve(['granted', 1, 2, 3])],
    ['a planted holder hash', () => Promise.resolve(['taken', '../../etc', '["a","p"]', 1, 2, 3, []])],
    ['times out of order', () => Promise.resolve(['admitted', 5, 1, 9, 1, '', '', []])],
    ['an unknown tombstone code', () => Promise.resolve(['evicted', 'z', []])],
    ['a negative count', () => Promise.resolve(['admitted', 1, 2, 3, -1, '', '', []])],
    ['names that are not a pair of strings', () => Promise.resolve(['taken', HASH, '{"holder":1}', 1, 2, 3, []])],
    ['a bad expired list', () => Promise.resolve(['unknown', 'nope'])],
    ['a lapse with a bad expired list', () => Promise.resolve(['lapsed', 'nope'])],
  ])('%s', async (_what, reply) => {
    const { admit, take, reissue, errors } = await allOps(reply);
    expect(admit).toEqual({ admitted: false, detail: UNAVAILABLE });
    expect(take).toEqual({ taken: false, reason: 'unavailable', detail: UNAVAILABLE });
    expect(reissue).toEqual({ reissued: false, reason: 'unavailable', detail: UNAVAILABLE });
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatchObject({ op: 'admit', store: 'redis' });
  });

  test('no answer within timeoutMs (virtual clock): denied once the time is up, not before', () => {
    const virtual = new VirtualTimeScheduler();
    const { ledger, errors } = ledgerReplying(() => new Promise<RedisReply>(() => {}), virtual);
    const seen: unknown[] = [];
    ledger.take('t1').subscribe((t) => seen.push(t));
    virtual.maxFrames = 499;
    virtual.flush();
    expect(seen).toEqual([]);
    virtual.maxFrames = Infinity;
    virtual.flush();
    expect(seen).toEqual([{ taken: false, reason: 'unavailable', detail: UNAVAILABLE }]);
    expect(errors).toHaveLength(1);
  });

  test('a holder too long to keep is refused without asking Redis', async () => {
    let calls = 0;
    const { ledger } = ledgerReplying(() => {
      calls += 1;
      return Promise.reject(new Error('not reached'));
    });
    expect(await firstValueFrom(ledger.admit({ holder: 'h'.repeat(70_000), peer: 'p' }))).toEqual({
      admitted: false,
      detail: 'request too large to hold for approval',
    });
    expect(calls).toBe(0);
  });

  test('a ticket id that cannot be ours is unknown without asking Redis', async () => {
    let calls = 0;
    const { ledger } = ledgerReplying(() => {
      calls += 1;
      return Promise.resolve(['unknown', []]);
    });
    expect(await firstValueFrom(ledger.take('a b'))).toEqual({ taken: false, reason: 'unknown' });
    expect(await firstValueFrom(ledger.take('x'.repeat(129)))).toEqual({ taken: false, reason: 'unknown' });
    expect(calls).toBe(0);
  });

  test('dropHolder asks Redis only for holders this node issued tickets to, and a failure is 0 (logged)', async () => {
    const replies: RedisReply[] = [['admitted', 1, 1001, 1, 1, '', '', []], ['dropped', 1, []]];
    let calls = 0;
    const { ledger, errors } = ledgerReplying(() => {
      calls += 1;
      const next = replies.shift();
      return next === undefined ? Promise.reject(new Error('down')) : Promise.resolve(next);
    });
    expect(await firstValueFrom(ledger.dropHolder('conn-never-held'))).toBe(0);
    expect(calls).toBe(0);
    expect((await firstValueFrom(ledger.admit({ holder: 'conn-1', peer: 'p' }))).admitted).toBe(true);
    expect(await firstValueFrom(ledger.dropHolder('conn-1'))).toBe(1);
    expect(calls).toBe(2);
    expect(await firstValueFrom(ledger.admit({ holder: 'conn-2', peer: 'p' }))).toEqual({ admitted: false, detail: UNAVAILABLE });
    expect(errors).toHaveLength(1);
  });
});

test('a clockSkewMs that is not an integer from 0 to 600000 refuses to start, naming the option', () => {
  const link = fakeLink(() => Promise.reject(new Error('not reached')));
  for (const clockSkewMs of [-1, 1.5, 600_001, Number.NaN]) {
    expect(() => redisLedgerOn(link, 'skew', CAPS, 1000, { clockSkewMs })).toThrow(expect.objectContaining({ name: 'ConfigError', option: 'clockSkewMs' }));
  }
  expect(redisLedgerOn(link, 'skew', CAPS, 1000).clockSkewMs).toBe(5000);
  expect(redisLedgerOn(link, 'skew', CAPS, 1000, { clockSkewMs: 0 }).clockSkewMs).toBe(0);
});

describe('through a server', () => {
  test('an approval asked while the ledger is down is denied with the store detail; the tool never runs', async () => {
    let runs = 0;
    const { logger, errors } = recordingLogger();
    const server = createServer({
      registry: new Registry().registerTool({ name: 'wipe', handler: () => `wiped ${++runs}` }),
      authorizer: (name) => (name === 'wipe' ? { ask: 'Wipe it?' } : 'allow'),
      authorizerSource: 'configured',
      requestStateKeys: ['f'.repeat(40)],
      logger,
      approvalLedger: redisApprovalLedger({ link: fakeLink(() => Promise.reject(new Error('ECONNRESET'))), keys: clusterKeys('down') }),
    });
    const reply = (await server.handleMessage(modernRpc(1, 'tools/call', { name: 'wipe', arguments: {} }, { capabilities: { elicitation: {} } }))) as {
      result: { isError?: boolean; content: Array<{ text: string }> };
    };
    expect(reply.result.isError).toBe(true);
    expect(JSON.parse(reply.result.content[0]!.text)).toEqual({ error: 'authorization_required', tool: 'wipe', decision: 'ask', detail: UNAVAILABLE });
    expect(runs).toBe(0);
    expect(errors).toEqual([expect.objectContaining({ op: 'admit' })]);
  });
});
