/**
 * The OAuth 2.1 flow of the loopback fake authorization server (fake-as.ts),
 * enough for a real client's flow to complete without a person: dynamic
 * client registration (RFC 7591), an authorization endpoint that approves at
 * once (302 back to the client's redirect URI with a code), and a token
 * endpoint for the authorization_code grant (PKCE S256 checked, client
 * authenticated as registered) and client_credentials. Tokens are JWTs
 * signed with the fake's first key, for the RFC 8707 `resource` the client
 * asked for, with the scopes it asked for, for the fixed user `subject`.
 * No refresh tokens: a client that needs more scopes authorizes again.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JWTPayload } from 'jose';

export interface OAuthFlowOptions {
  /** The user every authorization is for; default 'alice'. */
  readonly subject?: string;
  /** Token lifetime in seconds; default 3600. */
  readonly tokenLifetimeS?: number;
  /** The AS's clock (epoch ms); default the wall clock. */
  readonly now?: () => number;
}

export interface OAuthFlowRecord {
  readonly registrations: Record<string, unknown>[];
  /** Each authorization request's query, in order. */
  readonly authorizations: URLSearchParams[];
  /** Each token request's form, in order. */
  readonly tokenRequests: URLSearchParams[];
}

interface Client {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly redirect_uris: readonly string[];
  readonly token_endpoint_auth_method: string;
}

interface Grant {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly scope: string;
  readonly resource: string | null;
}

type Json = (status: number, body: unknown) => void;

export interface OAuthFlow extends OAuthFlowRecord {
  metadata(origin: string): Record<string, unknown>;
  /** Answers the request if it is one of the flow's; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, path: string, body: string, json: Json): boolean;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

export function oauthFlow(
  options: OAuthFlowOptions,
  issuer: () => string,
  sign: (payload: JWTPayload) => Promise<string>,
): OAuthFlow {
  const clients = new Map<string, Client>();
  const codes = new Map<string, Grant>();
  const record: OAuthFlowRecord = { registrations: [], authorizations: [], tokenRequests: [] };
  const now = options.now ?? (() => Date.now());
  const lifetime = options.tokenLifetimeS ?? 3600;

  const clientOf = (req: IncomingMessage, form: URLSearchParams): Client | undefined => {
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    let id = form.get('client_id') ?? undefined;
    let secret = form.get('client_secret') ?? undefined;
    if (scheme === 'Basic' && encoded !== undefined) {
      const [rawId, rawSecret] = Buffer.from(encoded, 'base64').toString('utf8').split(':');
      id = decodeURIComponent(rawId ?? '');
      secret = decodeURIComponent(rawSecret ?? '');
    }
    const client = id === undefined ? undefined : clients.get(id);
    if (client === undefined) return undefined;
    if (client.token_endpoint_auth_method !== 'none' && client.client_secret !== secret) return undefined;
    return client;
  };

  const issue = async (res: Json, claims: { sub: string; client_id: string; scope: string; aud: string | null }) => {
    const iat = Math.floor(now() / 1000);
    const payload: JWTPayload = { iss: issuer(), sub: claims.sub, client_id: claims.client_id, scope: claims.scope, iat, exp: iat + lifetime, jti: randomUUID() };
    if (claims.aud !== null) payload.aud = claims.aud;
    res(200, { access_token: await sign(payload), token_type: 'Bearer', expires_in: lifetime, scope: claims.scope });
  };

  return {
    ...record,
    metadata: (origin) => ({
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      grant_types_supported: ['authorization_code', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    }),
    handle(req, res, path, body, json) {
      if (path === '/register' && req.method === 'POST') {
        const metadata = JSON.parse(body) as Record<string, unknown>;
        record.registrations.push(metadata);
        const method = typeof metadata.token_endpoint_auth_method === 'string' ? metadata.token_endpoint_auth_method : 'client_secret_basic';
        const client: Client = {
          client_id: `client-${clients.size + 1}`,
          ...(method === 'none' ? {} : { client_secret: randomUUID() }),
          redirect_uris: Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as string[]) : [],
          token_endpoint_auth_method: method,
        };
        clients.set(client.client_id, client);
        json(201, { ...metadata, ...client, client_id_issued_at: Math.floor(now() / 1000) });
        return true;
      }
      if (path === '/authorize' && req.method === 'GET') {
        const query = new URL(req.url ?? '/', 'http://as').searchParams;
        record.authorizations.push(query);
        const client = clients.get(query.get('client_id') ?? '');
        const redirectUri = query.get('redirect_uri') ?? '';
        if (client === undefined || !client.redirect_uris.includes(redirectUri)) {
          json(400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
          return true;
        }
        if (query.get('response_type') !== 'code' || query.get('code_challenge_method') !== 'S256' || query.get('code_challenge') === null) {
          json(400, { error: 'invalid_request', error_description: 'PKCE S256 and response_type=code are required' });
          return true;
        }
        const code = randomUUID();
        codes.set(code, { clientId: client.client_id, redirectUri, challenge: query.get('code_challenge')!, scope: query.get('scope') ?? '', resource: query.get('resource') });
        const location = new URL(redirectUri);
        location.searchParams.set('code', code);
        location.searchParams.set('iss', issuer());
        if (query.get('state') !== null) location.searchParams.set('state', query.get('state')!);
        res.writeHead(302, { location: location.href });
        res.end();
        return true;
      }
      if (path === '/token' && req.method === 'POST') {
        const form = new URLSearchParams(body);
        record.tokenRequests.push(form);
        const client = clientOf(req, form);
        if (client === undefined) {
          json(401, { error: 'invalid_client' });
          return true;
        }
        if (form.get('grant_type') === 'client_credentials') {
          void issue(json, { sub: client.client_id, client_id: client.client_id, scope: form.get('scope') ?? '', aud: form.get('resource') });
          return true;
        }
        const code = form.get('code') ?? '';
        const grant = codes.get(code);
        codes.delete(code);
        const verifier = form.get('code_verifier') ?? '';
        if (
          form.get('grant_type') !== 'authorization_code' ||
          grant === undefined ||
          grant.clientId !== client.client_id ||
          grant.redirectUri !== form.get('redirect_uri') ||
          b64url(createHash('sha256').update(verifier).digest()) !== grant.challenge ||
          (form.get('resource') ?? grant.resource) !== grant.resource
        ) {
          json(400, { error: 'invalid_grant' });
          return true;
        }
        void issue(json, { sub: options.subject ?? 'alice', client_id: client.client_id, scope: grant.scope, aud: grant.resource });
        return true;
      }
      return false;
    },
  };
}
