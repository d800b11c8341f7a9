/**
 * Server options, their defaults, and the validation that makes createServer
 * refuse to start on a bad value (a ConfigError naming the option).
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import type { Authorizer } from './authorizers.js';
import { TRANSPORT_KINDS, type TransportKind } from './context.js';
import { resolveCacheHints, type CacheHintsOption, type ResolvedCacheHints } from './cache-hints.js';
import { resolveExposeErrors, type ExposeErrors } from './crash-exposure.js';
import { ConfigError } from './errors.js';
import { positiveIntegerOption } from './option-checks.js';
import { safeLogger } from './guarded.js';
import { isLogger, stderrLogger, type Logger } from './logger.js';
import { LISTEN_OPTION_NAMES, resolveListenOptions, type ListenOptions, type ResolvedListenOptions } from './listen-options.js';
import { resolveMiddleware } from './middleware/resolve.js';
import { resolveAskWithoutElicitation, resolveMaxRequestStateBytes, resolveRequestStateKeys, type AskWithoutElicitation } from './mrtr/mrtr-options.js';
import type { CallStage, Middleware } from './middleware/types.js';
import type { ApprovalLedgerFactory } from './ports/approval-ledger.js';
import { Registry } from './registry.js';
import { declaresTasks, isSensitiveTool } from './tool-def.js';
import { resolveTaskOptions, type ResolvedTaskOptions, type TaskOptions } from './tasks/task-options.js';
import { PACKAGE_VERSION } from './version.js';
import { isPermitPool, type PermitPool } from './ports/permits.js';
import { unknownOptionMessage } from './did-you-mean.js';
import { resolveExtensions, type Extension } from './extension.js';

/** `'configured'` when a person chose the authorizer (only then is `authorizationConfigured()` true), `'default'` for a framework's fallback. */
export type AuthorizerSource = 'configured' | 'default';

/** The options of `createServer`. All are optional, `undefined` is the default, and a bad value makes `createServer` throw a `ConfigError` naming it (docs/options.md has the table). */
export interface ServerOptions extends ListenOptions {
  /** Tools, resources, resource templates and prompts to serve; default a new empty Registry. */
  registry?: Registry | undefined;
  /** serverInfo.name; default `"rxmcp"`. */
  name?: string | undefined;
  /** serverInfo.version; default this package's version. */
  serverVersion?: string | undefined;
  /** Sent in the initialize result when set. */
  instructions?: string | undefined;
  /** Callback workers of this process at once. Per process, also in a cluster (see clusterPermits for shared caps). */
  maxInFlight?: number | undefined;
  /** One connection's share of maxInFlight; per process (a connection lives on one). */
  maxInFlightPerConnection?: number | undefined;
  /** One peer's share of maxInFlight (see ConnectOptions.peer); default max(floor(maxInFlight / 3), 1). */
  maxInFlightPerPeer?: number | undefined;
  /** Lifetime of one callback worker; past it the handler's signal aborts and the call answers `callback_timeout`. Default 300000. */
  callbackTimeoutMs?: number | undefined;
  /** How long a parked call, or a handler's `ctx.elicit`, waits for the user's answer. Default 60000. */
  elicitationTimeoutMs?: number | undefined;
  /** How long a handler's sampling/createMessage or roots/list may wait for the client. */
  clientRequestTimeoutMs?: number | undefined;
  /** Items per page of tools/list, resources/list, resources/templates/list and prompts/list. */
  pageSize?: number | undefined;
  /** How often `server.stats$` samples `stats()` on the scheduler (it emits only what changed); default 1000. */
  statsIntervalMs?: number | undefined;
  /** Calls one connection may have parked for an approval at once; default 32, at most maxParkedElicitationsTotal. */
  maxParkedElicitations?: number | undefined;
  /** Calls one peer may have parked at once; default max(maxParkedElicitations, floor(maxParkedElicitationsTotal / 2)). */
  maxParkedElicitationsPerPeer?: number | undefined;
  /** Parked calls across the server (fair eviction per peer past it); default 256. */
  maxParkedElicitationsTotal?: number | undefined;
  /** Connections whose initialize capabilities are remembered (a fixed-size projection each); default 1024. */
  maxClientCapabilities?: number | undefined;
  /** Estimated heap bytes a parked tools/call may hold (arguments, _meta, id); a bigger one is denied, not parked. */
  maxParkedCallBytes?: number | undefined;
  /** resources/subscribe URIs one connection may hold. */
  maxSubscriptionsPerConnection?: number | undefined;
  /** resources/subscribe URIs held across the server. */
  maxSubscriptionsTotal?: number | undefined;
  /** Longest URI (in characters) resources/subscribe accepts. */
  maxSubscriptionUriLength?: number | undefined;
  /** The tool authorizer, asked for every tools/call and every tool on tools/list; default null (allow every tool except sensitive ones, which are denied). */
  authorizer?: Authorizer | null | undefined;
  /** The read authorizer: tools/list, resources/*, prompts/*, completion/complete and logging/setLevel; default null (allow all). */
  readAuthorizer?: Authorizer | null | undefined;
  /** `'configured'` when a person chose the authorizer: only then is authorizationConfigured() true (the network boot guard asks it). Default `'default'`. */
  authorizerSource?: AuthorizerSource | undefined;
  /** A string it returns answers a call to an unknown tool with an isError result instead of the error; default null. */
  unknownToolReply?: ((name: string) => string | null | undefined) | null;
  /** The transport declared for direct callers (handleMessage/request without a transport). */
  transport?: TransportKind | undefined;
  /** The one clock every timer runs on (timeouts, expiries, sampling); a TestScheduler or the test kit's TestClock in tests. Default RxJS's asyncScheduler. */
  scheduler?: SchedulerLike | undefined;
  /** Where the server logs; default pino on stderr at `warn` (or RXMCP_LOG_LEVEL). What it throws is swallowed. */
  logger?: Logger | undefined;
  /** Stages every admitted call passes through, first outermost; see lib/middleware/types.ts. */
  middleware?: readonly Middleware[] | undefined;
  /** Modern era: ttlMs and cacheScope of the six cacheable results; default { ttlMs: 0, cacheScope: 'private' }. */
  cacheHints?: CacheHintsOption | undefined;
  /** Secrets (at least 32 bytes each) sealing MRTR requestState; the first seals, all open. Default: a per-process key, with a warning. */
  requestStateKeys?: ReadonlyArray<string | Uint8Array> | undefined;
  /** How long an MRTR approval ticket waits for its retry; default elicitationTimeoutMs. */
  approvalTtlMs?: number | undefined;
  /** Longest requestState accepted from a client (checked before any crypto); default 4096. */
  maxRequestStateBytes?: number | undefined;
  /** Builds the MRTR approval ledger instead of the in-memory one (a cluster store: rxmcp/redis). */
  approvalLedger?: ApprovalLedgerFactory | undefined;
  /**
   * Modern era only: a tools/call whose authorizer answers `{ ask }` when the
   * request's clientCapabilities declare no (form) elicitation. Default
   * `'missing-capability'`: -32021 with `requiredCapabilities: { elicitation: {} }`,
   * because the spec says a request needing a capability the client did not
   * declare MUST get that error (and a client can then retry declaring it).
   * `'deny'`: the seed's answer, as on the legacy wire: the
   * `authorization_required` deny result (detail "client cannot be asked (no
   * elicitation capability)", the question in `prompt`), for operators whose
   * clients read that deny but not -32021. No approval ticket is taken either
   * way; an ask with elicitation declared is an input_required round as before.
   */
  askWithoutElicitation?: AskWithoutElicitation | undefined;
  /** Caps shared with other processes (lib/ports/permits.ts), asked after this process's own bounds; default none. */
  clusterPermits?: PermitPool | undefined;
  /**
   * What a client is told when a tool's handler crashes (throws anything but
   * a ToolError). Default `false`: the contract's `Error: callback_crashed`,
   * the message only in the log (it may hold what a model should not read).
   * `'hint'` adds where the error is and how to send one; `'message'` sends
   * `Error: callback_crashed: <name>: <message>` (at most 1000 characters).
   */
  exposeErrors?: ExposeErrors | undefined;
  /**
   * Protocol extensions this server speaks (lib/extension.ts): each declared
   * under `capabilities.extensions[id]` in initialize and server/discover,
   * its methods served on the eras it names. Default none.
   */
  extensions?: readonly Extension[] | undefined;
  /**
   * The tasks extension (`io.modelcontextprotocol/tasks`, lib/tasks/task-options.ts):
   * `true` or its policy and bounds. Default off, unless a tool registered
   * before createServer declares `taskSupport`.
   */
  tasks?: TaskOptions | boolean | undefined;
}

export interface ResolvedOptions extends ResolvedListenOptions {
  registry: Registry;
  name: string;
  serverVersion: string;
  instructions: string | undefined;
  maxInFlight: number;
  maxInFlightPerConnection: number;
  maxInFlightPerPeer: number;
  callbackTimeoutMs: number;
  elicitationTimeoutMs: number;
  clientRequestTimeoutMs: number;
  pageSize: number;
  statsIntervalMs: number;
  maxParkedElicitations: number;
  maxParkedElicitationsPerPeer: number;
  maxParkedElicitationsTotal: number;
  maxClientCapabilities: number;
  maxParkedCallBytes: number;
  maxSubscriptionsPerConnection: number;
  maxSubscriptionsTotal: number;
  maxSubscriptionUriLength: number;
  authorizer: Authorizer | null;
  readAuthorizer: Authorizer | null;
  authorizerSource: AuthorizerSource;
  unknownToolReply: ((name: string) => string | null | undefined) | null;
  transport: TransportKind;
  scheduler: SchedulerLike;
  logger: Logger;
  /** The middleware, set up for this server; `null` when there is none (the pipeline's fast path). */
  middleware: readonly CallStage[] | null;
  cacheHints: ResolvedCacheHints;
  /** Empty when none was configured (lib/ports/key-ring.ts then makes a per-process key). */
  requestStateKeys: readonly Uint8Array[];
  approvalTtlMs: number;
  maxRequestStateBytes: number;
  /** null: the in-memory ledger, sharing its caps with legacy parking. */
  approvalLedger: ApprovalLedgerFactory | null;
  askWithoutElicitation: AskWithoutElicitation;
  clusterPermits: PermitPool | undefined;
  exposeErrors: ExposeErrors;
  /** Validated for shape here; against the built-in methods by the server (streams/extensions/extension-table.ts). */
  extensions: readonly Extension[];
  /** null: the server does not speak tasks. */
  tasks: ResolvedTaskOptions | null;
}

const KNOWN_OPTIONS = new Set<string>([
  'registry', 'name', 'serverVersion', 'instructions', 'maxInFlight', 'maxInFlightPerConnection', 'maxInFlightPerPeer',
  'callbackTimeoutMs', 'elicitationTimeoutMs', 'clientRequestTimeoutMs', 'pageSize', 'statsIntervalMs', 'maxParkedElicitations',
  'maxParkedElicitationsPerPeer', 'maxParkedElicitationsTotal',
  'maxClientCapabilities', 'maxParkedCallBytes', 'maxSubscriptionsPerConnection', 'maxSubscriptionsTotal',
  'maxSubscriptionUriLength', 'authorizer', 'readAuthorizer', 'authorizerSource', 'unknownToolReply',
  'transport', 'scheduler', 'logger', 'middleware', 'cacheHints', 'requestStateKeys', 'approvalTtlMs', 'maxRequestStateBytes', 'approvalLedger',
  'askWithoutElicitation', ...LISTEN_OPTION_NAMES,
  'clusterPermits', 'exposeErrors', 'extensions', 'tasks',
]);

function optionalFunction<T>(option: string, value: unknown): T | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'function') throw new ConfigError(option, `${option} must be a function or null`);
  return value as T;
}

function nonEmptyString(option: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigError(option, `${option} must be a non-empty string`);
  }
  return value;
}

export function isScheduler(value: unknown): value is SchedulerLike {
  const s = value as SchedulerLike;
  return typeof value === 'object' && value !== null && typeof s.now === 'function' && typeof s.schedule === 'function';
}

export function resolveOptions(options: ServerOptions = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'options must be an object');
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigError(key, unknownOptionMessage(key, KNOWN_OPTIONS));
  }
  const maxInFlight = positiveIntegerOption('maxInFlight', options.maxInFlight, 32);
  const maxInFlightPerConnection = positiveIntegerOption(
    'maxInFlightPerConnection',
    options.maxInFlightPerConnection,
    Math.max(Math.floor(maxInFlight / 2), 1),
  );
  if (maxInFlightPerConnection > maxInFlight) {
    throw new ConfigError(
      'maxInFlightPerConnection',
      `maxInFlightPerConnection (${maxInFlightPerConnection}) may not exceed maxInFlight (${maxInFlight})`,
    );
  }
  // Two peers at their full share leave a third of the workers: a third peer always gets its share while two are busy.
  const maxInFlightPerPeer = positiveIntegerOption('maxInFlightPerPeer', options.maxInFlightPerPeer, Math.max(Math.floor(maxInFlight / 3), 1));
  if (maxInFlightPerPeer > maxInFlight) {
    throw new ConfigError('maxInFlightPerPeer', `maxInFlightPerPeer (${maxInFlightPerPeer}) may not exceed maxInFlight (${maxInFlight})`);
  }
  const maxParkedElicitationsTotal = positiveIntegerOption('maxParkedElicitationsTotal', options.maxParkedElicitationsTotal, 256);
  const maxParkedElicitations = positiveIntegerOption('maxParkedElicitations', options.maxParkedElicitations, 32);
  if (maxParkedElicitations > maxParkedElicitationsTotal) {
    throw new ConfigError(
      'maxParkedElicitations',
      `maxParkedElicitations (${maxParkedElicitations}) may not exceed maxParkedElicitationsTotal (${maxParkedElicitationsTotal})`,
    );
  }
  const maxParkedElicitationsPerPeer = positiveIntegerOption(
    'maxParkedElicitationsPerPeer',
    options.maxParkedElicitationsPerPeer,
    Math.max(maxParkedElicitations, Math.floor(maxParkedElicitationsTotal / 2)),
  );
  if (maxParkedElicitationsPerPeer < maxParkedElicitations || maxParkedElicitationsPerPeer > maxParkedElicitationsTotal) {
    throw new ConfigError(
      'maxParkedElicitationsPerPeer',
      `maxParkedElicitationsPerPeer (${maxParkedElicitationsPerPeer}) must be from maxParkedElicitations (${maxParkedElicitations}) to maxParkedElicitationsTotal (${maxParkedElicitationsTotal})`,
    );
  }
  const maxSubscriptionsTotal = positiveIntegerOption('maxSubscriptionsTotal', options.maxSubscriptionsTotal, 16_384);
  const maxSubscriptionsPerConnection = positiveIntegerOption(
    'maxSubscriptionsPerConnection',
    options.maxSubscriptionsPerConnection,
    Math.min(256, maxSubscriptionsTotal),
  );
  if (maxSubscriptionsPerConnection > maxSubscriptionsTotal) {
    throw new ConfigError(
      'maxSubscriptionsPerConnection',
      `maxSubscriptionsPerConnection (${maxSubscriptionsPerConnection}) may not exceed maxSubscriptionsTotal (${maxSubscriptionsTotal})`,
    );
  }
  const authorizerSource = options.authorizerSource ?? 'default';
  if (authorizerSource !== 'configured' && authorizerSource !== 'default') {
    throw new ConfigError('authorizerSource', 'authorizerSource must be "configured" or "default"');
  }
  const transport = options.transport ?? 'unknown';
  if (!TRANSPORT_KINDS.includes(transport)) {
    throw new ConfigError('transport', `transport must be one of ${TRANSPORT_KINDS.join(', ')}`);
  }
  if (options.scheduler !== undefined && !isScheduler(options.scheduler)) {
    throw new ConfigError('scheduler', 'scheduler must be an RxJS SchedulerLike (now() and schedule())');
  }
  if (options.logger !== undefined && !isLogger(options.logger)) {
    throw new ConfigError('logger', 'logger must have debug, info, warn and error methods (a pino logger does)');
  }
  if (options.registry !== undefined && !(options.registry instanceof Registry)) {
    throw new ConfigError('registry', 'registry must be a Registry');
  }
  if (options.instructions !== undefined && typeof options.instructions !== 'string') {
    throw new ConfigError('instructions', 'instructions must be a string');
  }
  if (options.clusterPermits !== undefined && !isPermitPool(options.clusterPermits)) {
    throw new ConfigError('clusterPermits', 'clusterPermits must be a PermitPool (a permit(owner) method)');
  }
  const scheduler = options.scheduler ?? asyncScheduler;
  // Wrapped: a logger that throws must not turn a failure report into a crash.
  const logger = options.logger === undefined ? stderrLogger() : safeLogger(options.logger);
  const elicitationTimeoutMs = positiveIntegerOption('elicitationTimeoutMs', options.elicitationTimeoutMs, 60_000);
  const resolved: ResolvedOptions = {
    registry: options.registry ?? new Registry(),
    name: nonEmptyString('name', options.name, 'rxmcp'),
    serverVersion: nonEmptyString('serverVersion', options.serverVersion, PACKAGE_VERSION),
    instructions: options.instructions,
    maxInFlight,
    maxInFlightPerConnection,
    maxInFlightPerPeer,
    callbackTimeoutMs: positiveIntegerOption('callbackTimeoutMs', options.callbackTimeoutMs, 300_000),
    elicitationTimeoutMs,
    clientRequestTimeoutMs: positiveIntegerOption('clientRequestTimeoutMs', options.clientRequestTimeoutMs, 60_000),
    pageSize: positiveIntegerOption('pageSize', options.pageSize, 100),
    statsIntervalMs: positiveIntegerOption('statsIntervalMs', options.statsIntervalMs, 1000),
    maxParkedElicitations,
    maxParkedElicitationsPerPeer,
    maxParkedElicitationsTotal,
    maxClientCapabilities: positiveIntegerOption('maxClientCapabilities', options.maxClientCapabilities, 1024),
    maxParkedCallBytes: positiveIntegerOption('maxParkedCallBytes', options.maxParkedCallBytes, 64 * 1024),
    maxSubscriptionsPerConnection,
    maxSubscriptionsTotal,
    maxSubscriptionUriLength: positiveIntegerOption('maxSubscriptionUriLength', options.maxSubscriptionUriLength, 8 * 1024),
    authorizer: optionalFunction<Authorizer>('authorizer', options.authorizer),
    readAuthorizer: optionalFunction<Authorizer>('readAuthorizer', options.readAuthorizer),
    authorizerSource,
    unknownToolReply: optionalFunction('unknownToolReply', options.unknownToolReply),
    transport,
    scheduler,
    logger,
    middleware: resolveMiddleware(options.middleware, { scheduler, logger }),
    cacheHints: resolveCacheHints(options.cacheHints),
    requestStateKeys: resolveRequestStateKeys(options.requestStateKeys),
    approvalTtlMs: positiveIntegerOption('approvalTtlMs', options.approvalTtlMs, elicitationTimeoutMs),
    maxRequestStateBytes: resolveMaxRequestStateBytes(options.maxRequestStateBytes),
    approvalLedger: optionalFunction<ApprovalLedgerFactory>('approvalLedger', options.approvalLedger),
    askWithoutElicitation: resolveAskWithoutElicitation(options.askWithoutElicitation),
    clusterPermits: options.clusterPermits,
    exposeErrors: resolveExposeErrors(options.exposeErrors),
    extensions: resolveExtensions(options.extensions, () => false),
    tasks: resolveTaskOptions(options.tasks ?? (options.registry?.staticTools().some(declaresTasks) === true ? true : undefined)),
    ...resolveListenOptions(options, logger),
  };
  refuseUnguardedSensitiveTools(resolved);
  return resolved;
}

/** A static sensitive tool with no authorizer must not boot; late and derived ones are denied at call time. */
function refuseUnguardedSensitiveTools(options: ResolvedOptions): void {
  if (options.authorizer !== null) return;
  const unguarded = options.registry.staticTools().filter(isSensitiveTool).map((t) => t.name);
  if (unguarded.length > 0) {
    throw new ConfigError(
      'authorizer',
      `sensitive tools need an authorizer: ${unguarded.join(', ')} (annotated destructiveHint or sensitive); pass an authorizer or remove them`,
    );
  }
}
