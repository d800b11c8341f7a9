/**
 * rxmcp's Streamable HTTP transport for the bench server: serveHttp on
 * 127.0.0.1 with its defaults (endpoint /mcp); resolves the endpoint URL
 * once it listens. With `auth`, every request is authenticated with a JWT
 * bearer token (bench-auth.ts), the endpoint requires the token's scope, and
 * the URL carries the driver's token in its fragment.
 */
import type { McpServer } from 'rxmcp';
import { serveHttp } from 'rxmcp/transports';
import { BENCH_SCOPE, benchAuth } from './bench-auth.js';

const AUDIENCE = 'rxmcp-bench';

export async function serveRxmcpHttp(server: McpServer, port: number, auth = false): Promise<string> {
  if (!auth) return (await serveHttp(server, { port, host: '127.0.0.1' })).url;
  const issuer = await benchAuth(server, AUDIENCE);
  const handle = await serveHttp(server, {
    port,
    host: '127.0.0.1',
    authenticator: issuer.authenticator,
    authorizationServers: [issuer.issuer],
    requiredScopes: [BENCH_SCOPE],
  });
  return `${handle.url}#bearer=${await issuer.token(AUDIENCE)}`;
}
