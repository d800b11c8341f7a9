/**
 * The network boot guard: a network transport (HTTP, legacy SSE, WebSocket)
 * refuses to start on a server nobody decided to expose. Authorization is
 * required unless NODE_ENV is `development` or `test`, or the transport's
 * `requireAuthorization: false` says so; an explicit `requireAuthorization:
 * true` requires it whatever NODE_ENV says. When required, the server must
 * report `authorizationConfigured()` (a tool authorizer a caller CHOSE) and
 * `readAuthorizationConfigured()` (a read authorizer); otherwise a
 * ConfigError says what to configure.
 */
import { ConfigError } from '../lib/errors.js';

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
  authorizationConfigured(): boolean;
  readAuthorizationConfigured(): boolean;
}

const EXEMPT_ENVIRONMENTS = new Set(['development', 'test']);

export function authorizationRequired(options: BootGuardOptions = {}): boolean {
  if (options.requireAuthorization !== undefined) return options.requireAuthorization;
  const nodeEnv = (options.env ?? process.env).NODE_ENV;
  return nodeEnv === undefined || !EXEMPT_ENVIRONMENTS.has(nodeEnv);
}

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
