/**
 * RedisPermitPool on a real Redis (and one test on a 3-node Redis Cluster):
 * the cluster-wide and per-principal caps hold under a concurrent flood
 * from three links (checked in Redis itself at sample points, and in the
 * grants), a release frees, a node that stops renewing loses its permits
 * one lease after its last renewal (not before), and Redis failing or not
 * answering refuses (fail closed). Through servers: redis-permits-servers.test.ts.
 * Real time, bounded: every wait has a deadline, every loop a count.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterKeys, type ClusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { permitKeys, RedisPermitPool, type RedisPermitPoolOptions } from '../../cluster/redis/permits.js';
import type { PermitScope } from '../../lib/ports/permits.js';
import { redisTopologyForSuite, startRedisTopology, type RedisTopology } from '../helpers/redis-server.js';
import { ask, leaseEnds, memoryLogger, redisNow, uniqueKeys, until, zcard } from './permit-helpers.js';

describe('RedisPermitPool on one Redis', () => {
  let redis: RedisTopology | undefined;
  const pools: RedisPermitPool[] = [];

  const newLink = (): Promise<RedisLink> => redis!.link();

  function newPool(link: RedisLink, keys: ClusterKeys, nodeId: string, options: Partial<RedisPermitPoolOptions> = {}): RedisPermitPool {
    const pool = new RedisPermitPool({ link, keys, nodeId, logger: memoryLogger(), ...options });
    pools.push(pool);
    return pool;
  }

  beforeAll(async () => {
    redis = await startRedisTopology(false);
  }, 30_000);

  afterAll(async () => {
    for (const pool of pools) pool.dispose();
    await redis?.stop();
  });

  test('a concurrent flood from three links never exceeds either cap, in Redis or in the grants', async () => {
    const keys = uniqueKeys();
    const where = permitKeys(keys);
    const MAX = 10;
    const PER_OWNER = 3;
    const owners = ['alice', 'bob', 'carol', 'dave', 'erin'];
    // Alice asks half the time: she meets her own cap while the others still fit under the total.
    const pattern = ['alice', 'bob', 'alice', 'carol', 'alice', 'dave', 'alice', 'erin'];
    const nodes = await Promise.all(
      ['n1', 'n2', 'n3'].map(async (nodeId) => newPool(await newLink(), keys, nodeId, { maxInFlight: MAX, maxInFlightPerPrincipal: PER_OWNER })),
    );
    const observer = await newLink();
    const held = new Map<string, number>();
    let heldTotal = 0;
    let peakTotal = 0;
    let peakOwner = 0;
    let grants = 0;
    const refusals: Record<PermitScope, number> = { cluster: 0, principal: 0 };
    const samples: Array<{ total: number; owners: number[] }> = [];
    let flooding = true;
    const sampler = (async () => {
      for (let i = 0; i < 2000 && flooding; i += 1) {
        samples.push({
          total: await zcard(observer, where.global),
          owners: await Promise.all(owners.map((o) => zcard(observer, where.owner(o)))),
        });
        await sleep(2);
      }
    })();
    // Each node runs 8 callers, each asking 15 times in a row: 24 askers against a total of 10.
    const CALLERS_PER_NODE = 8;
    const ASKS_PER_CALLER = 15;
    await Promise.all(
      nodes.flatMap((pool, n) =>
        Array.from({ length: CALLERS_PER_NODE }, async (_unused, c) => {
          for (let k = 0; k < ASKS_PER_CALLER; k += 1) {
            const owner = pattern[(c + n + k) % pattern.length]!;
            const asked = ask(pool, owner);
            const answer = await asked.answer;
            if (!answer.granted) {
              refusals[answer.scope] += 1;
              asked.subscription.unsubscribe();
              await sleep(1 + ((c + k) % 4));
              continue;
            }
            grants += 1;
            heldTotal += 1;
            held.set(owner, (held.get(owner) ?? 0) + 1);
            peakTotal = Math.max(peakTotal, heldTotal);
            peakOwner = Math.max(peakOwner, held.get(owner)!);
            await sleep(3 + ((c * 7 + k * 3) % 12));
            heldTotal -= 1;
            held.set(owner, held.get(owner)! - 1);
            asked.subscription.unsubscribe();
          }
        }),
      ),
    );
    flooding = false;
    await sampler;
    // The flood was a flood: both caps refused, and permits were reused after releases.
    expect(refusals.cluster).toBeGreaterThan(0);
    expect(refusals.principal).toBeGreaterThan(0);
    expect(grants).toBeGreaterThan(MAX);
    expect(peakTotal).toBe(MAX);
    expect(peakOwner).toBe(PER_OWNER);
    expect(samples.length).toBeGreaterThan(5);
    expect(Math.max(...samples.map((s) => s.total))).toBeLessThanOrEqual(MAX);
    expect(Math.max(...samples.flatMap((s) => s.owners))).toBeLessThanOrEqual(PER_OWNER);
    expect(samples.some((s) => s.total > 0)).toBe(true);
    // Every release reached Redis: nothing left, and no node believes it holds anything.
    await until('the releases', async () => ((await zcard(observer, where.global)) === 0 ? true : undefined), 2000);
    expect(nodes.map((pool) => pool.held)).toEqual([0, 0, 0]);
  }, 30_000);

  test('the per-principal cap holds across nodes while other principals still get permits; a release frees', async () => {
    const keys = uniqueKeys();
    const where = permitKeys(keys);
    const a = newPool(await newLink(), keys, 'a', { maxInFlight: 10, maxInFlightPerPrincipal: 2 });
    const b = newPool(await newLink(), keys, 'b', { maxInFlight: 10, maxInFlightPerPrincipal: 2 });
    const observer = await newLink();
    const first = ask(a, 'principal:alice');
    const second = ask(b, 'principal:alice');
    expect([(await first.answer).granted, (await second.answer).granted]).toEqual([true, true]);
    const third = ask(a, 'principal:alice');
    expect(await third.answer).toEqual({ granted: false, scope: 'principal' });
    const bob = ask(b, 'principal:bob');
    expect(await bob.answer).toEqual({ granted: true });
    expect(await zcard(observer, where.owner('principal:alice'))).toBe(2);
    expect(await zcard(observer, where.global)).toBe(3);

    second.subscription.unsubscribe();
    await until('the release', async () => ((await zcard(observer, where.owner('principal:alice'))) === 1 ? true : undefined), 2000);
    const fourth = ask(a, 'principal:alice');
    expect(await fourth.answer).toEqual({ granted: true });
    for (const asked of [first, third, bob, fourth]) asked.subscription.unsubscribe();
    await until('every release', async () => ((await zcard(observer, where.global)) === 0 ? true : undefined), 2000);
    // Empty sets are gone, and nothing was left without an expiry.
    expect(await observer.command(where.global, ['EXISTS', where.global, where.owner('principal:alice'), where.owner('principal:bob')])).toBe(0);
  });

  test('every key carries a PX no longer than the lease', async () => {
    const keys = uniqueKeys();
    const where = permitKeys(keys);
    const link = await newLink();
    const pool = newPool(link, keys, 'px', { leaseMs: 5000 });
    const asked = ask(pool, 'principal:px');
    expect((await asked.answer).granted).toBe(true);
    for (const key of [where.global, where.owner('principal:px')]) {
      const pttl = Number(await link.command(key, ['PTTL', key]));
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(5000);
    }
    asked.subscription.unsubscribe();
  });

  test('a node that stops renewing loses its permits one lease after its last renewal, not before', async () => {
    const LEASE = 600;
    const keys = uniqueKeys();
    const where = permitKeys(keys);
    const observer = await newLink();
    const deadLink = await newLink();
    const dead = newPool(deadLink, keys, 'dead', { maxInFlight: 3, maxInFlightPerPrincipal: 3, leaseMs: LEASE });
    const live = newPool(await newLink(), keys, 'live', { maxInFlight: 3, maxInFlightPerPrincipal: 3, leaseMs: LEASE });
    const held = [ask(dead, 'x'), ask(dead, 'y'), ask(dead, 'z')];
    const grantedAt = await redisNow(observer, where.global);
    expect((await Promise.all(held.map((h) => h.answer))).every((a) => a.granted)).toBe(true);
    // The heartbeat (every leaseMs / 3) renews them: each lease end moves past the one granted.
    const renewedEnds = await until(
      'a renewal',
      async () => {
        const ends = await leaseEnds(observer, where.global);
        return ends.length === 3 && Math.min(...ends) > grantedAt + LEASE + 100 ? ends : undefined;
      },
      3 * LEASE,
    );
    expect(renewedEnds).toHaveLength(3);
    // The node dies: no more renewals, no releases (its link is gone too).
    dead.dispose();
    await deadLink.close();
    const lastEnds = await leaseEnds(observer, where.global);
    const lapse = Math.max(...lastEnds);
    expect(lapse - Math.min(...lastEnds)).toBeLessThan(LEASE);
    // Meanwhile the cap still counts them: every acquire on the live node is refused until the lease ends.
    let refused = 0;
    const firstGrant = await until(
      'the dead node\'s permits to lapse',
      async () => {
        const asked = ask(live, 'w');
        const answer = await asked.answer;
        const at = await redisNow(observer, where.global);
        if (answer.granted) return { asked, at };
        expect(answer).toEqual({ granted: false, scope: 'cluster' });
        refused += 1;
        return undefined;
      },
      3 * LEASE,
      25,
    );
    expect(refused).toBeGreaterThan(0);
    // Not before the earliest lease end (Redis time read after the grant: a grant seen earlier than that is early),
    // and within one lease of the last renewal (plus the polling's own latency, bounded at half a lease).
    expect(firstGrant.at).toBeGreaterThanOrEqual(Math.min(...lastEnds));
    expect(firstGrant.at).toBeLessThanOrEqual(lapse + LEASE / 2);
    firstGrant.asked.subscription.unsubscribe();
    for (const h of held) h.subscription.unsubscribe();
  }, 10_000);

  test('Redis failing an acquire refuses with scope cluster and logs it; a failed release is logged', async () => {
    const keys = uniqueKeys();
    const link = await newLink();
    const logger = memoryLogger();
    const pool = newPool(link, keys, 'failing', { logger });
    const granted = ask(pool, 'principal:f');
    expect((await granted.answer).granted).toBe(true);
    await link.close();
    granted.subscription.unsubscribe();
    const refused = ask(pool, 'principal:f');
    expect(await refused.answer).toEqual({ granted: false, scope: 'cluster' });
    await until('the log lines', async () => (logger.lines.length >= 2 ? true : undefined), 2000);
    expect(logger.lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/release/), expect.stringMatching(/acquire: refused \(fail closed\)/)]),
    );
    refused.subscription.unsubscribe();
  });

  test('an acquire Redis does not answer in time is refused (fail closed); if Redis adds it later, it is given back', async () => {
    const keys = uniqueKeys();
    const where = permitKeys(keys);
    const observer = await newLink();
    const logger = memoryLogger();
    const poolLink = await newLink();
    const pool = newPool(poolLink, keys, 'paused', { acquireTimeoutMs: 100, logger });
    // Loads the scripts, so the paused acquire is one EVALSHA (no NOSCRIPT retry behind the PINGs below).
    const warm = ask(pool, 'principal:p');
    expect((await warm.answer).granted).toBe(true);
    warm.subscription.unsubscribe();
    await until('the warm-up release', async () => ((await zcard(observer, where.global)) === 0 ? true : undefined), 2000);
    // Every client's commands wait 600 ms (the script included); the answer comes after the timeout.
    await observer.command(where.global, ['CLIENT', 'PAUSE', '600', 'ALL']);
    const started = Date.now();
    const asked = ask(pool, 'principal:p');
    expect(await asked.answer).toEqual({ granted: false, scope: 'cluster' });
    expect(Date.now() - started).toBeLessThan(500);
    expect(logger.lines.map((l) => l.msg)).toEqual([expect.stringMatching(/did not answer a permit acquire in time/)]);
    // Commands on one connection run in order: after this PING the script has run (and granted), and after
    // the second the pool's release of that late grant has run too.
    await poolLink.command(where.global, ['PING']);
    await poolLink.command(where.global, ['PING']);
    expect(await zcard(observer, where.global)).toBe(0);
    expect(pool.held).toBe(0);
    asked.subscription.unsubscribe();
  });

  test('options are checked: a per-principal cap above the total, or a lease under 30 ms, is a ConfigError', async () => {
    const link = await newLink();
    const keys = uniqueKeys();
    expect(() => new RedisPermitPool({ link, keys, nodeId: 'n', maxInFlight: 2, maxInFlightPerPrincipal: 3 })).toThrow(/maxInFlightPerPrincipal/);
    expect(() => new RedisPermitPool({ link, keys, nodeId: 'n', leaseMs: 10 })).toThrow(/leaseMs/);
    expect(() => new RedisPermitPool({ link, keys, nodeId: 'a{b}' })).toThrow(/nodeId/);
  });

});

describe('RedisPermitPool on a 3-node Redis Cluster', () => {
  let link: RedisLink;
  redisTopologyForSuite(true, async (cluster) => {
    link = await cluster.link();
  }, 60_000);

  test('acquire, renew and release run on the cluster (every key in one slot): caps hold and leases are renewed', async () => {
    const LEASE = 300;
    const keys = clusterKeys(`permits-cluster-${process.pid}`);
    const where = permitKeys(keys);
    const one = new RedisPermitPool({ link, keys, nodeId: 'c1', maxInFlight: 3, maxInFlightPerPrincipal: 2, leaseMs: LEASE, logger: memoryLogger() });
    const two = new RedisPermitPool({ link, keys, nodeId: 'c2', maxInFlight: 3, maxInFlightPerPrincipal: 2, leaseMs: LEASE, logger: memoryLogger() });
    try {
      const asked = [ask(one, 'alice'), ask(two, 'alice'), ask(one, 'alice'), ask(two, 'bob'), ask(one, 'carol')];
      const answers = await Promise.all(asked.map((a) => a.answer));
      expect(answers).toEqual([
        { granted: true },
        { granted: true },
        { granted: false, scope: 'principal' },
        { granted: true },
        { granted: false, scope: 'cluster' },
      ]);
      // Held past two leases: renewed by the heartbeats, so still counted.
      await sleep(2 * LEASE + 100);
      expect(await zcard(link, where.global)).toBe(3);
      expect(await ask(two, 'dave').answer).toEqual({ granted: false, scope: 'cluster' });
      for (const a of asked) a.subscription.unsubscribe();
      await until('the releases', async () => ((await zcard(link, where.global)) === 0 ? true : undefined), 2000);
      expect([one.held, two.held]).toEqual([0, 0]);
    } finally {
      one.dispose();
      two.dispose();
    }
  }, 15_000);
});
