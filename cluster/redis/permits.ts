/**
 * RedisPermitPool: the in-flight caps that hold across every node of a
 * deployment, as leased permits in Redis (permits-lua.ts): `maxInFlight`
 * calls at once in the whole deployment, `maxInFlightPerPrincipal` of them
 * for one owner (the caller's fairness key). Give every node the same caps.
 *
 * - acquire: one script (purge lapsed leases, compare with the caps, add to
 *   both sets), one round trip, bounded by `acquireTimeoutMs`;
 * - release: one script, when the call ends (lib/ports/permits.ts's contract);
 * - heartbeat: while this node holds permits, every leaseMs/3 one script
 *   renews them all (in batches of RENEW_BATCH). A node that dies stops
 *   renewing, and its permits lapse one lease after its last renewal.
 * Fails closed: an acquire Redis does not answer (an error, or no answer in
 * time) is busy with scope `cluster`, logged. A failed release is logged
 * and left to the lease. Timers run on the scheduler given.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  BehaviorSubject,
  EMPTY,
  Observable,
  defer,
  distinctUntilChanged,
  exhaustMap,
  from,
  interval,
  map,
  switchMap,
  asyncScheduler,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { ConfigError } from '../../lib/errors.js';
import { stderrLogger, type Logger } from '../../lib/logger.js';
import { positiveIntegerOption } from '../../lib/option-checks.js';
import { permitPool, type Acquired, type PermitAnswer, type PermitPool } from '../../lib/ports/permits.js';
import { failClosed } from './fail-closed.js';
import type { ClusterKeys } from './keys.js';
import type { RedisLink, RedisReply } from './link.js';
import { ACQUIRE_PERMIT, RELEASE_PERMIT, RENEW_PERMITS } from './permits-lua.js';

/** The cluster-wide in-flight caps (`redisCluster({ permits })`): calls at once in the deployment and per owner, and the permits' lease. */
export interface RedisPermitsOptions {
  /** Calls in flight at once across the deployment; default 1024. */
  readonly maxInFlight?: number | undefined;
  /** Calls one owner (principal, else peer, else connection) may have in flight across the deployment; default max(floor(maxInFlight / 3), 1). */
  readonly maxInFlightPerPrincipal?: number | undefined;
  /** How long a permit lives without a renewal, in ms (Redis time); default 10000, at least 30. */
  readonly leaseMs?: number | undefined;
  /** How long an acquire may wait for Redis before it counts as busy; default min(1000, floor(leaseMs / 2)). */
  readonly acquireTimeoutMs?: number | undefined;
}

/** Options of `RedisPermitPool`: the caps, and the link, keys and node it runs with. */
export interface RedisPermitPoolOptions extends RedisPermitsOptions {
  readonly link: RedisLink;
  readonly keys: ClusterKeys;
  /** This process's name in the deployment (part of every member it adds). */
  readonly nodeId: string;
  /** The heartbeat's and the acquire timeout's clock; default asyncScheduler. */
  readonly scheduler?: SchedulerLike | undefined;
  /** Default pino on stderr. */
  readonly logger?: Logger | undefined;
}

/** A permit this node holds: its member and its owner's set. */
interface Held {
  readonly member: string;
  readonly ownerKey: string;
}

const NODE_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** Members per renew script: bounds one script's arguments and its time inside Redis. */
const RENEW_BATCH = 256;
const REFUSED_CLUSTER: Acquired<never> = { granted: false, scope: 'cluster' };
const REFUSED_PRINCIPAL: Acquired<never> = { granted: false, scope: 'principal' };

/**
 * Where the permits of a deployment are: the global set, and one set per
 * owner, named by a hash of the owner (a fairness key may be long, and is
 * nobody's business in a key name).
 */
export function permitKeys(keys: ClusterKeys): {
  /** The key of the deployment's set of permits. */
  readonly global: string;
  /** The key of one owner's set (named by a SHA-256 of the owner). */
  owner(owner: string): string;
} {
  return {
    global: keys.key('permits'),
    owner: (owner) => keys.key('permits', 'owner', createHash('sha256').update(owner, 'utf8').digest('base64url')),
  };
}

/** A `PermitPool` on Redis: leased permits acquired and released by Lua scripts on Redis time, renewed by each node while it holds any; fails closed (busy, scope `cluster`). */
export class RedisPermitPool implements PermitPool {
  readonly maxInFlight: number;
  readonly maxInFlightPerPrincipal: number;
  readonly leaseMs: number;
  readonly acquireTimeoutMs: number;
  private readonly link: RedisLink;
  private readonly keys: ClusterKeys;
  private readonly permitKeys: ReturnType<typeof permitKeys>;
  private readonly globalKey: string;
  private readonly memberPrefix: string;
  private readonly scheduler: SchedulerLike;
  private readonly logger: Logger;
  private readonly pool: PermitPool;
  /** Permits granted to this node and not yet released: what the heartbeat renews. */
  private readonly live = new Map<string, Held>();
  private readonly liveCount = new BehaviorSubject(0);
  private readonly heartbeat: Subscription;
  private readonly lastWarned = new Map<string, number>();
  private issued = 0;

  constructor(options: RedisPermitPoolOptions) {
    this.maxInFlight = positiveIntegerOption('permits.maxInFlight', options.maxInFlight, 1024);
    this.maxInFlightPerPrincipal = positiveIntegerOption(
      'permits.maxInFlightPerPrincipal',
      options.maxInFlightPerPrincipal,
      Math.max(Math.floor(this.maxInFlight / 3), 1),
    );
    if (this.maxInFlightPerPrincipal > this.maxInFlight) {
      throw new ConfigError('permits.maxInFlightPerPrincipal', 'permits.maxInFlightPerPrincipal may not exceed permits.maxInFlight');
    }
    this.leaseMs = positiveIntegerOption('permits.leaseMs', options.leaseMs, 10_000);
    if (this.leaseMs < 30) throw new ConfigError('permits.leaseMs', 'permits.leaseMs must be at least 30');
    this.acquireTimeoutMs = positiveIntegerOption('permits.acquireTimeoutMs', options.acquireTimeoutMs, Math.min(1000, Math.floor(this.leaseMs / 2)));
    if (typeof options.nodeId !== 'string' || !NODE_ID.test(options.nodeId)) {
      throw new ConfigError('nodeId', 'nodeId must be 1-64 characters of letters, digits and . _ : -');
    }
    this.link = options.link;
    this.keys = options.keys;
    this.permitKeys = permitKeys(options.keys);
    this.globalKey = this.permitKeys.global;
    // The random part keeps two pools of one node (or a restarted node) from sharing members.
    this.memberPrefix = `${options.nodeId}:${randomBytes(6).toString('base64url')}.`;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.logger = options.logger ?? stderrLogger();
    this.pool = permitPool<Held>(
      (owner) => this.acquire(owner),
      (held) => this.release(held),
    );
    const period = Math.max(Math.floor(this.leaseMs / 3), 1);
    // A timer only while something is held (an idle node makes no calls and arms nothing), and
    // one renewal at a time: a tick while Redis is slow is skipped, not queued behind it.
    this.heartbeat = this.liveCount
      .pipe(
        map((count) => count > 0),
        distinctUntilChanged(),
        switchMap((holding) => (holding ? interval(period, this.scheduler).pipe(exhaustMap(() => this.renew())) : EMPTY)),
      )
      .subscribe();
  }

  permit(owner: string): Observable<PermitAnswer> {
    return this.pool.permit(owner);
  }

  /** Permits this node holds now. */
  get held(): number {
    return this.live.size;
  }

  /** Stops renewing: what this node holds lapses within one lease (what a crash does). */
  dispose(): void {
    this.heartbeat.unsubscribe();
  }

  /** Stops renewing and gives back what is still held (best effort: a failure is left to the lease). */
  async close(): Promise<void> {
    this.dispose();
    const held = [...this.live.values()];
    this.live.clear();
    await Promise.all(held.map((h) => this.releaseInRedis(h)));
  }

  private acquire(owner: string): Observable<Acquired<Held>> {
    return defer(() => {
      this.issued += 1;
      const held: Held = { member: `${this.memberPrefix}${this.issued}`, ownerKey: this.permitKeys.owner(owner) };
      const reply = this.link.run(
        ACQUIRE_PERMIT,
        [this.globalKey, held.ownerKey],
        [held.member, this.leaseMs, this.maxInFlight, this.maxInFlightPerPrincipal],
      );
      return failClosed(
        from(reply).pipe(map((answer) => this.answered(held, answer))),
        { ms: this.acquireTimeoutMs, scheduler: this.scheduler },
        () => {
          this.warn('acquire', { timeoutMs: this.acquireTimeoutMs }, 'Redis did not answer a permit acquire in time: refused (fail closed)');
          // If Redis does add it later, give it back; the lease would reclaim it anyway.
          reply.then((late) => (late === 'ok' ? this.releaseInRedis(held) : undefined), () => undefined);
          return REFUSED_CLUSTER;
        },
        (err) => {
          this.warn('acquire', { err }, 'Redis failed a permit acquire: refused (fail closed)');
          return REFUSED_CLUSTER;
        },
      );
    });
  }

  /** The script's reply, checked: only 'ok' grants. */
  private answered(held: Held, answer: RedisReply): Acquired<Held> {
    if (answer === 'ok') {
      this.live.set(held.member, held);
      this.liveCount.next(this.live.size);
      return { granted: true, grant: held };
    }
    if (answer === 'principal') return REFUSED_PRINCIPAL;
    if (answer !== 'cluster') this.warn('reply', { reply: String(answer).slice(0, 64) }, 'unexpected permit acquire reply: refused');
    return REFUSED_CLUSTER;
  }

  private release(held: Held): void {
    if (!this.live.delete(held.member)) return;
    this.liveCount.next(this.live.size);
    void this.releaseInRedis(held);
  }

  private async releaseInRedis(held: Held): Promise<void> {
    try {
      await this.link.run(RELEASE_PERMIT, [this.globalKey, held.ownerKey], [held.member]);
    } catch (err) {
      this.warn('release', { err }, 'Redis failed a permit release; its lease will reclaim it');
    }
  }

  private async renew(): Promise<void> {
    const held = [...this.live.values()];
    for (let start = 0; start < held.length; start += RENEW_BATCH) {
      const batch = held.slice(start, start + RENEW_BATCH);
      try {
        const lost = await this.link.run(
          RENEW_PERMITS,
          [this.globalKey, ...batch.map((h) => h.ownerKey)],
          [this.leaseMs, ...batch.map((h) => h.member)],
        );
        if (typeof lost === 'number' && lost > 0) {
          this.warn('lapsed', { lost }, 'permits of calls still running had lapsed (no renewal within a lease); the caps no longer count them');
        }
      } catch (err) {
        this.warn('renew', { err }, 'Redis failed a permit renewal; permits lapse one lease after their last renewal');
        return;
      }
    }
  }

  /** One line per kind and lease at most: an outage must not turn into a log flood. */
  private warn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = this.scheduler.now();
    const last = this.lastWarned.get(kind);
    if (last !== undefined && now - last < this.leaseMs) return;
    this.lastWarned.set(kind, now);
    this.logger.warn({ ...fields, serverId: this.keys.serverId }, message);
  }
}
