/**
 * Interop: the official TypeScript SDK client (v1.32) completes its OAuth
 * flow against rxmcp and the loopback fake authorization server, then calls
 * a protected tool over Streamable HTTP. The flow is the SDK's own, end to
 * end: 401 challenge → Protected Resource Metadata (from
 * `resource_metadata`) → authorization server metadata → dynamic client
 * registration → authorization request with PKCE and the RFC 8707 resource
 * (the fake approves at once; the provider follows the redirect instead of
 * a browser) → `finishAuth(code)` → token → the call. Then the step-up: a
 * tool needing a scope the token lacks is a 403 `insufficient_scope`, the
 * SDK authorizes again for the challenged scopes, and the same session runs
 * the tool with the new token.
 */
import { createServer as createNodeServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterEach, expect, test } from 'vitest';
import { createServer, jwtBearer, type McpServer } from '../../lib/index.js';
import { createHttpHandler, type HttpHandler } from '../../transports/index.js';
import { startFakeAs, type FakeAs } from './fake-as.js';
import { ENDPOINT_SCOPE, protectedRegistry } from './protected-http.js';

const REDIRECT_URL = 'http://127.0.0.1:1/oauth/callback';

/** An in-memory OAuth client: where a browser would follow the authorization URL, it fetches it and keeps the code. */
class AutoApprovingProvider implements OAuthClientProvider {
  private client: OAuthClientInformationMixed | undefined;
  private stored: OAuthTokens | undefined;
  private verifier = '';
  readonly authorizationUrls: URL[] = [];
  code: string | undefined;

  get redirectUrl(): string {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'rxmcp interop test',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    };
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }

  tokens() {
    return this.stored;
  }

  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }

  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT_URL);
    this.code = back.searchParams.get('code') ?? undefined;
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function protectedServer(): Promise<{ as: FakeAs; server: McpServer; url: string }> {
  const as = await startFakeAs({ oauth: { subject: 'alice' } });
  const server = createServer({ registry: protectedRegistry() });
  // The canonical resource is the endpoint's real URL, known once the listener is bound.
  let handler: HttpHandler | undefined;
  const httpServer: Server = createNodeServer((req, res) => handler!(req, res));
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
  handler = createHttpHandler(server, {
    authenticator: jwtBearer({ issuer: as.issuer, audiences: [url] }),
    resource: url,
    authorizationServers: [as.issuer],
    requiredScopes: [ENDPOINT_SCOPE],
  });
  cleanup = async () => {
    handler!.close();
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    server.close();
    await as.close();
  };
  return { as, server, url };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

test('the SDK client registers, authorizes with PKCE, calls a protected tool, and steps up on the same session', async () => {
  const { as, url } = await protectedServer();
  const provider = new AutoApprovingProvider();

  // First contact: 401 → discovery → registration → authorization (the SDK hands the URL to the provider).
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await expect(new Client({ name: 'interop', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(as.oauth.registrations).toHaveLength(1);
  const authorization = provider.authorizationUrls[0]!.searchParams;
  expect(authorization.get('code_challenge_method')).toBe('S256');
  expect(authorization.get('resource')).toBe(url);
  expect(authorization.get('scope')).toBe(ENDPOINT_SCOPE);
  await first.finishAuth(provider.code!);
  expect(as.oauth.tokenRequests.map((form) => form.get('grant_type'))).toEqual(['authorization_code']);
  await first.close();

  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const client = new Client({ name: 'interop', version: '1.0.0' });
  await client.connect(transport);
  expect(textOf(await client.callTool({ name: 'whoami' }))).toBe(`alice [${ENDPOINT_SCOPE}]`);
  expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['whoami']);
  const session = transport.sessionId;

  // Step-up: the 403 names every scope the call needs; the SDK authorizes again for them.
  await expect(client.callTool({ name: 'delete_note' })).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrls[1]!.searchParams.get('scope')).toBe(`${ENDPOINT_SCOPE} notes:write`);
  await transport.finishAuth(provider.code!);
  expect(textOf(await client.callTool({ name: 'delete_note' }))).toBe(`deleted by alice [${ENDPOINT_SCOPE} notes:write]`);
  expect(transport.sessionId).toBe(session);
  expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['whoami', 'delete_note']);
  await client.close();
});
