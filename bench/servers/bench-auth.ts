/**
 * JWT bearer authentication for the bench server (`--auth`): an RS256 key
 * pair made in this process, its JWKS served on 127.0.0.1 (port 0) by a
 * tiny issuer of its own, `jwtBearer` fetching it once and keeping it
 * cached (jose's remote key set), and one token for the driver, valid for
 * an hour. The driver gets the token in the fragment of the READY URL
 * (`…/mcp#bearer=<jwt>`, a bench-only convention: a fragment never goes on
 * the wire), so every request it makes is verified like a real client's.
 */
import { createServer as createNodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { jwtBearer, type Authenticator, type McpServer } from 'rxmcp';

export interface BenchAuth {
  readonly authenticator: Authenticator;
  readonly issuer: string;
  /** A token for `audience`, signed with the issuer's key. */
  token(audience: string): Promise<string>;
}

export const BENCH_SCOPE = 'mcp:use';

export async function benchAuth(server: McpServer, audience: string): Promise<BenchAuth> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' }] });
  const issuerServer = createNodeServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(jwks);
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  issuerServer.unref();
  const issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  const authenticator = jwtBearer({ issuer, audiences: [audience], jwksUri: `${issuer}/jwks`, scheduler: server.scheduler });
  return {
    authenticator,
    issuer,
    token: (aud) =>
      new SignJWT({ scope: BENCH_SCOPE, client_id: 'bench-driver' })
        .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
        .setIssuer(issuer)
        .setSubject('bench')
        .setAudience(aud)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
  };
}
