/**
 * The network boot guard: a network transport (HTTP, legacy SSE, WebSocket)
 * refuses to start on a server nobody decided to expose. Authorization is
 * required unless NODE_ENV is `development` or `test`, or the transport's
 * `requireAuthorization: false` says so; an explicit `requireAuthorization:
 * true` requires it whatever NODE_ENV says. When required, the server must
 * report `authorizationConfigured()` (a tool authorizer a caller CHOSE) and
 * `readAuthorizationConfigured()` (a read authorizer); otherwise a
 * ConfigError says what to configure.
 *
 * A second, separate guard is about authentication (who is calling): a
 * network transport bound to a non-loopback address refuses to start
 * without an authenticator unless `requireAuthentication: false` says so on
 * purpose; `requireAuthentication: true` requires one wherever it listens.
 * NODE_ENV does not lift it: a server reachable from other hosts is
 * reachable from other hosts in development too. An authenticator is not an
 * authorizer: it never makes `authorizationConfigured()` true, so the first
 * guard is unchanged by it.
 */
import { isIP } from 'node:net';
import { ConfigError } from '../lib/errors.js';

/** Options of the authorization boot guard: `requireAuthorization` and the `env` it reads `NODE_ENV` from. */
export interface BootGuardOptions {
  /** `false` serves without authorization; `true` requires it even in development; default: by NODE_ENV. */
  readonly requireAuthorization?: boolean | undefined;
  /** Where NODE_ENV is read; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Named in the error: which transport refused. */
  readonly transport?: string | undefined;
}

/** What the guard asks of a server. */
export interface GuardedServer {
  /** True when a tool authorizer is set and `authorizerSource` is `'configured'`. */
  authorizationConfigured(): boolean;
  /** True when a read authorizer is set. */
  readAuthorizationConfigured(): boolean;
}

const EXEMPT_ENVIRONMENTS = new Set(['development', 'test']);

/** Whether the authorization boot guard applies (not under `NODE_ENV` `development` or `test`, unless `requireAuthorization: true`). */
export function authorizationRequired(options: BootGuardOptions = {}): boolean {
  if (options.requireAuthorization !== undefined) return options.requireAuthorization;
  const nodeEnv = (options.env ?? process.env).NODE_ENV;
  return nodeEnv === undefined || !EXEMPT_ENVIRONMENTS.has(nodeEnv);
}

/** Throws a `ConfigError` saying what to configure when a network transport would serve a server whose tool and read authorizers are not both configured. */
export function assertNetworkBootAllowed(server: GuardedServer, options: BootGuardOptions = {}): void {
  if (!authorizationRequired(options)) return;
  const missing: { option: string; what: string; fix: string }[] = [];
  if (!server.authorizationConfigured()) {
    missing.push({
      option: 'authorizer',
      what: 'no tool authorizer was chosen (server.authorizationConfigured() is false)',
      fix: "pass createServer({ authorizer, authorizerSource: 'configured' }) with an authorizer you wrote or built (allowlist, denyAll, allowAll)",
    });
  }
  if (!server.readAuthorizationConfigured()) {
    missing.push({
      option: 'readAuthorizer',
      what: 'there is no read authorizer (server.readAuthorizationConfigured() is false)',
      fix: 'pass createServer({ readAuthorizer }) to gate tools/list, resources, prompts, completion and logging/setLevel',
    });
  }
  const first = missing[0];
  if (first === undefined) return;
  const transport = options.transport ?? 'a network transport';
  throw new ConfigError(
    first.option,
    `refusing to serve MCP over ${transport} without authorization: ${missing.map((m) => m.what).join('; ')}. ` +
      `To configure it: ${missing.map((m) => m.fix).join('; and ')}. ` +
      'To serve without authorization on purpose, pass requireAuthorization: false to the transport ' +
      '(NODE_ENV=development or NODE_ENV=test also lifts the requirement).',
  );
}

/** Options of the authentication boot guard: the host bound, whether an authenticator is set, and `requireAuthentication`. */
export interface AuthenticationGuardOptions {
  /** The address the transport listens on; undefined when it does not know (a handler mounted in someone else's server). */
  readonly host: string | undefined;
  /** Whether the transport has an authenticator. */
  readonly authenticated: boolean;
  /** `false` lifts the guard, `true` applies it wherever the transport listens; default: by the address. */
  readonly requireAuthentication?: boolean | undefined;
  readonly transport?: string | undefined;
}

/** Whether `host` can only be reached from this machine (127.0.0.0/8, ::1, localhost). A wildcard or a name is not. */
export function isLoopbackHost(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const family = isIP(name);
  if (family === 4) return name.startsWith('127.');
  if (family === 6) return name === '::1' || name === '0:0:0:0:0:0:0:1' || name.startsWith('::ffff:127.');
  return false;
}

/** Whether the authentication boot guard requires an authenticator (a non-loopback address, unless told otherwise). */
export function authenticationRequired(options: AuthenticationGuardOptions): boolean {
  if (options.requireAuthentication !== undefined) return options.requireAuthentication;
  return options.host !== undefined && !isLoopbackHost(options.host);
}

/** Throws a `ConfigError` when a network transport would serve a non-loopback address without an authenticator (unless `requireAuthentication: false`). */
export function assertAuthenticationAllowed(options: AuthenticationGuardOptions): void {
  if (options.authenticated || !authenticationRequired(options)) return;
  const transport = options.transport ?? 'a network transport';
  const where = options.host === undefined ? '' : ` on ${JSON.stringify(options.host)} (not a loopback address)`;
  throw new ConfigError(
    'authenticator',
    `refusing to serve MCP over ${transport} without authentication${where}: anyone who can reach it could call it. ` +
      'Pass an authenticator (e.g. authenticator: jwtBearer({ issuer, audiences }), with resource and authorizationServers), ' +
      'bind a loopback address (127.0.0.1), or pass requireAuthentication: false to serve it unauthenticated on purpose.',
  );
}
