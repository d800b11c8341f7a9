/**
 * A protected rxmcp HTTP server for the tests: the loopback fake
 * authorization server (keys made in-process, metadata and JWKS served on
 * 127.0.0.1), jwtBearer against it on the server's virtual clock (at epoch
 * time T0), and serveHttp with an authenticator, the canonical resource and
 * the endpoint's scope `mcp:use`. Tokens are signed for a user and client
 * with the scopes asked.
 */
import type { SchedulerLike } from 'rxjs';
import { createServer, jwtBearer, Registry, type CallContext, type JwtBearerOptions, type McpServer, type ServerOptions } from '../../lib/index.js';
import { serveHttp, type HttpServerHandle, type ServeHttpOptions } from '../../transports/index.js';
import { epochClock, seconds, startFakeAs, T0, type FakeAs } from './fake-as.js';

export const RESOURCE = 'https://mcp.example.com/mcp';
export const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
export const ENDPOINT_SCOPE = 'mcp:use';

/** whoami answers who the handler context says is calling, with their scopes; delete_note needs notes:write. */
export function protectedRegistry(): Registry {
  const who = (ctx: CallContext) => `${ctx.principal?.subject ?? 'nobody'} [${ctx.principal?.scopes.join(' ') ?? ''}]`;
  return new Registry()
    .registerTool({ name: 'whoami', handler: (_args, ctx) => who(ctx) })
    .registerTool({ name: 'delete_note', requiredScopes: ['notes:write'], handler: (_args, ctx) => `deleted by ${who(ctx)}` })
    .registerResource({ uri: 'notes://public', name: 'public', read: () => 'public notes' })
    .registerResource({ uri: 'notes://secret', name: 'secret', requiredScopes: ['notes:read'], read: () => 'secret notes' })
    .registerResourceTemplate({ uriTemplate: 'notes://by-id/{id}', name: 'by id', requiredScopes: ['notes:read'], read: (_uri, { id }) => `note ${id}` })
    .registerPrompt({ name: 'summarize', get: () => 'summarize' })
    .registerPrompt({ name: 'redact', requiredScopes: ['notes:write'], get: () => 'redact' });
}

export interface TokenClaims {
  readonly sub?: string;
  readonly clientId?: string;
  readonly scope?: string;
  readonly aud?: string | string[];
  readonly iss?: string;
  /** Seconds after T0; default 3600. */
  readonly expiresIn?: number;
}

export interface ProtectedHttp {
  readonly as: FakeAs;
  readonly server: McpServer;
  readonly http: HttpServerHandle;
  readonly url: string;
  readonly base: string;
  readonly clock: ReturnType<typeof epochClock>;
  /** A token of the fake AS for this resource: alice of client `app` with `mcp:use` unless told otherwise. */
  token(claims?: TokenClaims, sign?: { kid?: string; keyIndex?: number }): Promise<string>;
  close(): Promise<void>;
}

export async function protectedHttp(
  options: { server?: ServerOptions; http?: ServeHttpOptions; jwt?: Partial<JwtBearerOptions>; registry?: (scheduler: SchedulerLike) => Registry } = {},
): Promise<ProtectedHttp> {
  const as = await startFakeAs();
  const clock = epochClock();
  const registry = options.registry?.(clock.scheduler) ?? protectedRegistry();
  const server = createServer({ registry, scheduler: clock.scheduler, ...options.server });
  const authenticator = jwtBearer({ issuer: as.issuer, audiences: [RESOURCE], jwksUri: as.jwksUri, scheduler: clock.scheduler, ...options.jwt });
  const http = await serveHttp(server, {
    port: 0,
    idleSocketTimeoutMs: 3_600_000,
    authenticator,
    resource: RESOURCE,
    authorizationServers: [as.issuer],
    requiredScopes: [ENDPOINT_SCOPE],
    ...options.http,
  });
  return {
    as,
    server,
    http,
    url: http.url,
    base: `http://127.0.0.1:${http.port}`,
    clock,
    token(claims = {}, sign = {}) {
      return as.sign(
        {
          iss: claims.iss ?? as.issuer,
          sub: claims.sub ?? 'alice',
          client_id: claims.clientId ?? 'app',
          aud: claims.aud ?? RESOURCE,
          scope: claims.scope ?? ENDPOINT_SCOPE,
          iat: seconds(clock.now()),
          exp: seconds(T0) + (claims.expiresIn ?? 3600),
        },
        { key: as.keys[sign.keyIndex ?? 0], ...(sign.kid === undefined ? {} : { kid: sign.kid }) },
      );
    },
    async close() {
      await http.close();
      server.close();
      await as.close();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The parameters of a `WWW-Authenticate: Bearer k="v", ...` header. */
export function challengeParams(header: string | null): Record<string, string> {
  if (header === null) throw new Error('no WWW-Authenticate header');
  expectBearer(header);
  const params: Record<string, string> = {};
  for (const match of header.matchAll(/([a-z_]+)="([^"]*)"/g)) params[match[1]!] = match[2]!;
  return params;
}

function expectBearer(header: string): void {
  if (!header.startsWith('Bearer')) throw new Error(`not a Bearer challenge: ${header}`);
}
