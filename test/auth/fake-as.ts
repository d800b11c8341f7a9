/**
 * A loopback authorization server made in the test: keys generated here,
 * metadata, JWKS and introspection served by node:http on 127.0.0.1 port 0,
 * tokens signed here. Counts every request by path, so a test can prove how
 * often the resource server asked.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { VirtualTimeScheduler } from 'rxjs';
import { oauthFlow, type OAuthFlowOptions, type OAuthFlowRecord } from './fake-as-oauth.js';

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, jwk };
}

export interface FakeAsOptions {
  /** The issuer's path (e.g. '/tenant'); default none. */
  readonly issuerPath?: string;
  /** Which metadata document to serve: RFC 8414 (default) or OIDC. */
  readonly metadata?: 'oauth' | 'oidc' | 'none';
  /** Introspection answers by token; a token not here is `{ active: false }`. */
  readonly introspection?: Map<string, Record<string, unknown>>;
  /** Expected Basic credentials for introspection. */
  readonly client?: { id: string; secret: string };
  /** Serve an OAuth flow too (registration, an authorize endpoint that approves at once, token); see fake-as-oauth.ts. */
  readonly oauth?: OAuthFlowOptions;
}

export interface FakeAs {
  readonly origin: string;
  readonly issuer: string;
  readonly jwksUri: string;
  readonly introspectionEndpoint: string;
  readonly keys: SigningKey[];
  /** Requests seen, by path. */
  readonly hits: Map<string, number>;
  /** Bodies of introspection requests, as parsed forms. */
  readonly introspected: URLSearchParams[];
  /** Makes the introspection endpoint fail with this status (0 = answer normally). */
  failIntrospection: number;
  /** What the OAuth flow saw (empty lists without the `oauth` option). */
  readonly oauth: OAuthFlowRecord;
  sign(payload: JWTPayload, options?: { key?: SigningKey; kid?: string; typ?: string }): Promise<string>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

let sharedKeys: Promise<SigningKey[]> | undefined;

/** Key generation is the slow part (RSA); every fake server of a test file publishes the same two keys. */
function issuerKeys(): Promise<SigningKey[]> {
  sharedKeys ??= Promise.all([signingKey('k-rsa', 'RS256'), signingKey('k-ec', 'ES256')]);
  return sharedKeys;
}

export async function startFakeAs(options: FakeAsOptions = {}): Promise<FakeAs> {
  const keys = await issuerKeys();
  const hits = new Map<string, number>();
  const introspected: URLSearchParams[] = [];
  const issuerPath = options.issuerPath ?? '';
  let origin = '';
  const flow =
    options.oauth === undefined
      ? undefined
      : oauthFlow(options.oauth, () => `${origin}${issuerPath}`, (payload) => fake.sign(payload));
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0]!;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const issuer = `${origin}${issuerPath}`;
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const metadata = {
        issuer,
        jwks_uri: `${origin}/jwks`,
        introspection_endpoint: `${origin}/introspect`,
        response_types_supported: ['code'],
        ...flow?.metadata(origin),
      };
      if (options.metadata !== 'none' && options.metadata !== 'oidc' && path === `/.well-known/oauth-authorization-server${issuerPath}`) {
        return json(200, metadata);
      }
      if (options.metadata === 'oidc' && path === `${issuerPath}/.well-known/openid-configuration`) return json(200, metadata);
      if (path === '/jwks') return json(200, { keys: keys.map((key) => key.jwk) });
      if (path === '/introspect' && req.method === 'POST') {
        const form = new URLSearchParams(await readBody(req));
        introspected.push(form);
        if (fake.failIntrospection !== 0) return json(fake.failIntrospection, { error: 'temporarily_unavailable' });
        if (options.client !== undefined) {
          // RFC 6749 §2.3.1: id and secret are form-encoded, then joined with ':' and base64-encoded.
          const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
          const [id, secret] = Buffer.from(encoded ?? '', 'base64').toString('utf8').split(':');
          const decode = (value: string | undefined) => decodeURIComponent((value ?? '').replace(/\+/g, ' '));
          if (scheme !== 'Basic' || decode(id) !== options.client.id || decode(secret) !== options.client.secret) {
            return json(401, { error: 'invalid_client' });
          }
        }
        return json(200, options.introspection?.get(form.get('token') ?? '') ?? { active: false });
      }
      if (flow !== undefined && flow.handle(req, res, path, req.method === 'POST' ? await readBody(req) : '', json)) return;
      return json(404, { error: 'not_found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeAs = {
    origin,
    issuer: `${origin}${issuerPath}`,
    jwksUri: `${origin}/jwks`,
    introspectionEndpoint: `${origin}/introspect`,
    keys,
    hits,
    introspected,
    failIntrospection: 0,
    oauth: flow ?? { registrations: [], authorizations: [], tokenRequests: [] },
    async sign(payload, signOptions = {}) {
      const key = signOptions.key ?? keys[0]!;
      const header: Record<string, unknown> = { alg: key.alg, kid: signOptions.kid ?? key.kid };
      if (signOptions.typ !== undefined) header.typ = signOptions.typ;
      return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** 2026-12-03T00:00:00Z: the virtual clock's start, an epoch time so token `exp` values make sense. */
export const T0 = Date.UTC(2026, 11, 3);

/** A virtual clock at epoch time T0: `advance(ms)` runs what is due, nothing else. */
export function epochClock(): { scheduler: VirtualTimeScheduler; advance(ms: number): void; now(): number } {
  const scheduler = new VirtualTimeScheduler();
  scheduler.frame = T0;
  let now = T0;
  return {
    scheduler,
    now: () => now,
    advance(ms: number) {
      now += ms;
      scheduler.maxFrames = now;
      scheduler.flush();
      scheduler.frame = now;
    },
  };
}

/** Seconds since the epoch at virtual time `ms`. */
export const seconds = (ms: number) => Math.floor(ms / 1000);
