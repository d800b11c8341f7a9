/**
 * redisCluster: the one call that puts an rxmcp process into a deployment
 * of several, sharing state through Redis. It connects (or takes a link),
 * loads what must be shared before the server starts, and hands back option
 * fragments to spread into `createServer` and the HTTP transport, so the
 * pipeline itself does not change:
 *
 *   const cluster = await redisCluster({ redis: 'redis://127.0.0.1:6379', serverId: 'notes' });
 *   const server = createServer({ registry, ...cluster.serverOptions });
 *   await serveHttp(server, { ...cluster.httpOptions });
 *   // on shutdown: await cluster.close();
 *
 * Every process of one deployment uses the same `serverId` (the hash tag of
 * its keys) and gets its own `nodeId`.
 */
import { redisTaskStore, type RedisTaskStoreOptions } from './task-store.js';
import type { TaskOptions } from '../../lib/tasks/task-options.js';
import { randomBytes } from 'node:crypto';
import type { ServerOptions } from '../../lib/options.js';
import type { EventStore } from '../../lib/ports/event-store.js';
import type { SessionDirectory } from '../../lib/ports/session-directory.js';
import type { Logger } from '../../lib/logger.js';
import { redisApprovalLedger, type RedisApprovalLedgerOptions } from './approval-ledger.js';
import { connectRedis, type RedisTarget } from './connect.js';
import { createRedisEventBus } from './event-bus.js';
import { loadRequestStateKeys } from './key-ring.js';
import { clusterKeys, type ClusterKeys } from './keys.js';
import type { RedisLink } from './link.js';
import { RedisPermitPool, type RedisPermitsOptions } from './permits.js';
import { RedisEventStore } from './event-store.js';
import { redisSessionDirectory, type RedisSessionDirectory } from './session-directory.js';

/** Options of `redisCluster`: the Redis to use, the deployment's `serverId`, and what to share (the approval ledger, opt-in permits, legacy sessions). */
export interface RedisClusterOptions {
  /** A URL, `{ cluster: [seed URLs] }` for Redis Cluster, or a link of your own (closed by you). */
  readonly redis: RedisTarget | RedisLink;
  /** The deployment's name: the same on every process of it. */
  readonly serverId: string;
  /** This process's name in the deployment; default random. */
  readonly nodeId?: string | undefined;
  /** Where connection errors are reported. */
  readonly onError?: ((err: unknown) => void) | undefined;
  /** Where the cluster stores report what they drop or skip; default pino on stderr. */
  readonly logger?: Logger | undefined;
  /**
   * Secrets for MRTR requestState that win over the ring kept in Redis
   * (which is then neither read nor created); see cluster/redis/key-ring.ts.
   */
  readonly requestStateKeys?: ReadonlyArray<string | Uint8Array> | undefined;
  /** The approval ledger's Redis timeout and allowance for the nodes' clock skew (approval-ledger.ts). */
  readonly approvalLedger?: Pick<RedisApprovalLedgerOptions, 'timeoutMs' | 'clockSkewMs'> | undefined;
  /** Cluster-wide in-flight caps as leased permits (permits.ts); absent: none, each node only has its own bounds. */
  readonly permits?: RedisPermitsOptions | undefined;
  /**
   * Legacy sessions across nodes: where the other nodes reach this one's HTTP handler to relay requests for its
   * sessions (e.g. `http://10.0.0.7:3000`); or call `advertise(url)` once it listens. Relay key, heartbeat: `legacy`.
   */
  readonly relayUrl?: string | undefined;
  readonly legacy?: RedisLegacyOptions | undefined;
  /**
   * The tasks extension across nodes: `serverOptions.tasks` with these
   * options and the Redis task store (task-store.ts), so a task created on one
   * node is read, answered and cancelled on any. `true` for the defaults;
   * absent: tasks stay as the server's own options say.
   */
  readonly tasks?: true | (Omit<TaskOptions, 'store'> & Pick<RedisTaskStoreOptions, 'timeoutMs' | 'leaseMs'>) | undefined;
}

/** The session directory's and event store's options (session-directory.ts, event-store.ts). */
export interface RedisLegacyOptions {
  readonly heartbeatMs?: number | undefined;
  /** How long a silent node counts as alive (the directory's ttlMs). */
  readonly nodeTtlMs?: number | undefined;
  readonly cacheMs?: number | undefined;
  readonly relayKey?: Uint8Array | undefined;
  readonly maxEventsPerSession?: number | undefined;
  /** The event store's ttlMs. */
  readonly eventTtlMs?: number | undefined;
}

/** The HTTP transport's options a cluster fills: where legacy sessions live and where their events are kept. */
export interface ClusterHttpOptions {
  readonly sessionDirectory?: SessionDirectory | undefined;
  readonly eventStore?: EventStore | undefined;
}

/** What `redisCluster` returns: `serverOptions` and `httpOptions` to spread into `createServer` and the HTTP transport, `advertise(url)`, `close()`, and the node id, keys and link it uses. */
export interface RedisClusterHandle {
  readonly nodeId: string;
  readonly keys: ClusterKeys;
  readonly link: RedisLink;
  /** Spread into createServer's options. */
  readonly serverOptions: Partial<ServerOptions>;
  /** Spread into createHttpHandler's / serveHttp's options (the HTTP transport's two ports). */
  readonly httpOptions: ClusterHttpOptions;
  /** Publishes where this node's HTTP handler is reached (its legacy sessions are relayed there); not needed with `relayUrl`. */
  advertise(url: string): Promise<void>;
  /** Stops what this handle started and closes the connection it made. */
  close(): Promise<void>;
}

function isLink(value: RedisClusterOptions['redis']): value is RedisLink {
  return typeof value === 'object' && value !== null && 'run' in value && typeof value.run === 'function';
}

/** Connects one process of a deployment to Redis and builds the shared stores (event bus, key ring, approval ledger, optional permits, legacy session directory and event store). Every process uses the same `serverId`. */
export async function redisCluster(options: RedisClusterOptions): Promise<RedisClusterHandle> {
  const keys = clusterKeys(options.serverId);
  const nodeId = options.nodeId ?? randomBytes(6).toString('base64url');
  const ownsLink = !isLink(options.redis);
  const link = isLink(options.redis)
    ? options.redis
    : await connectRedis(options.redis, options.onError ? { onError: options.onError } : {});
  const closers: Array<() => Promise<void>> = [];
  const serverOptions: Partial<ServerOptions> = {};
  const httpOptions: { sessionDirectory?: SessionDirectory; eventStore?: EventStore } = {};
  // Each shared store adds its fragment here (event bus, key ring, approval ledger, permits, sessions).
  const logger = options.logger;
  let directory: RedisSessionDirectory;
  try {
    const eventBus = await createRedisEventBus({ link, keys, nodeId, ...(logger ? { logger } : {}) });
    closers.push(() => eventBus.close());
    serverOptions.eventBus = eventBus;
    serverOptions.requestStateKeys = options.requestStateKeys ?? (await loadRequestStateKeys(link, keys, logger ? { logger } : {}));
    // MRTR approval tickets: issued on one node, redeemed exactly once on any; caps cluster-wide (legacy parking stays per node).
    serverOptions.approvalLedger = redisApprovalLedger({ ...options.approvalLedger, link, keys });
    // Tasks on one store every node shares (opt-in): created anywhere, read, answered and cancelled anywhere.
    if (options.tasks !== undefined) {
      const { timeoutMs, leaseMs, ...taskOptions } = options.tasks === true ? {} : options.tasks;
      serverOptions.tasks = { ...taskOptions, store: redisTaskStore({ link, keys, timeoutMs, leaseMs }) };
    }
    // In-flight caps cluster-wide as leased permits (opt-in); maxInFlight and its shares stay per node.
    if (options.permits !== undefined) {
      const permits = new RedisPermitPool({ link, keys, nodeId, ...options.permits, ...(logger ? { logger } : {}) });
      closers.push(() => permits.close());
      serverOptions.clusterPermits = permits;
    }
    const { maxEventsPerSession, eventTtlMs, nodeTtlMs, heartbeatMs, cacheMs, relayKey } = options.legacy ?? {};
    const onError = options.onError ?? (logger ? (err: unknown) => logger.warn({ err }, 'legacy session store') : undefined);
    directory = await redisSessionDirectory({ link, keys, nodeId, heartbeatMs, ttlMs: nodeTtlMs, cacheMs, relayKey, onError });
    const leave = directory;
    closers.push(() => leave.close());
    httpOptions.sessionDirectory = directory;
    httpOptions.eventStore = new RedisEventStore({ link, keys, maxEventsPerSession, ttlMs: eventTtlMs, onError });
    if (options.relayUrl !== undefined) await directory.advertise(options.relayUrl);
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if (ownsLink) await link.close().catch(() => undefined);
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    nodeId,
    keys,
    link,
    serverOptions,
    httpOptions,
    advertise: (url) => directory.advertise(url),
    // Once: a second call waits for the first instead of running the closers again (in the opposite order).
    close: () => (closing ??= (async () => {
      for (const close of [...closers].reverse()) await close();
      if (ownsLink) await link.close();
    })()),
  };
}
