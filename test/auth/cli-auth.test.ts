/**
 * The CLI's authentication flags, as a user runs them (`node
 * dist/examples/cli/rxmcp.js`, so `npm run build` must have run):
 * `--http 0 --auth-issuer ISS --auth-audience AUD --auth-scopes mcp:use`
 * discovers the JWKS from the loopback fake issuer's metadata, publishes
 * the Protected Resource Metadata for its own endpoint, challenges a request
 * without a token and serves one with a token of that issuer; and a
 * non-loopback --host without authentication exits 1 before listening.
 * Each test ends its process by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { parseCommandLine, UsageError } from '../../examples/cli/args.js';
import { startFakeAs, type FakeAs } from './fake-as.js';
import { challengeParams } from './protected-http.js';

const BIN = fileURLToPath(new URL('../../dist/examples/cli/rxmcp.js', import.meta.url));
const SERVER_MODULE = fileURLToPath(new URL('../ws/fixtures/cli-server.mjs', import.meta.url));

const running: ChildProcess[] = [];
let as: FakeAs | undefined;

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (npm test does)`);
});

afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }
  await as?.close();
  as = undefined;
});

function cli(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NODE_ENV: 'production', RXMCP_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    const check = () => {
      for (const line of stderr.split('\n')) {
        if (!line.startsWith('{')) continue;
        const log = JSON.parse(line) as { msg?: string; url?: string };
        if (log.msg === 'listening') return resolve(String(log.url));
      }
    };
    child.stderr!.on('data', check);
    child.once('exit', () => reject(new Error(`the CLI exited first; stderr:\n${stderr}`)));
  });
  listening.catch(() => {}); // awaited only by the tests that expect it to listen
  return { child, exited, listening, stderr: () => stderr };
}

test('the auth flags parse into one JWT bearer choice, and are refused where they cannot apply', () => {
  expect(parseCommandLine(['serve', 's.js', '--http', '3000', '--auth-issuer', 'https://as.example.com', '--auth-audience', 'https://mcp.example.com/mcp', '--auth-scopes', 'a, b'])).toMatchObject({
    auth: { issuer: 'https://as.example.com', audience: 'https://mcp.example.com/mcp', resource: 'https://mcp.example.com/mcp', scopes: ['a', 'b'] },
  });
  const opaqueAudience = parseCommandLine(['serve', 's.js', '--ws', '0', '--auth-issuer', 'https://as.example.com', '--auth-audience', 'api://mcp', '--auth-jwks', 'https://as.example.com/jwks']);
  expect(opaqueAudience).toMatchObject({ auth: { audience: 'api://mcp', jwksUri: 'https://as.example.com/jwks', scopes: [] } });
  expect((opaqueAudience as { auth: object }).auth).not.toHaveProperty('resource');
  expect(parseCommandLine(['serve', 's.js', '--http', '0', '--host', '0.0.0.0', '--allow-unauthenticated'])).toMatchObject({ allowUnauthenticated: true });
  for (const [argv, message] of [
    [['serve', 's.js', '--http', '0', '--auth-issuer', 'https://as.example.com'], 'needs --auth-audience'],
    [['serve', 's.js', '--http', '0', '--auth-audience', 'x'], 'needs --auth-issuer'],
    [['serve', 's.js', '--http', '0', '--auth-issuer', 'as.example.com', '--auth-audience', 'x'], 'needs an http(s) URL'],
    [['serve', 's.js', '--auth-issuer', 'https://as.example.com', '--auth-audience', 'x'], '--http and --ws only'],
    [['serve', 's.js', '--http', '0', '--auth-issuer', 'https://as.example.com', '--auth-audience', 'x', '--allow-unauthenticated'], 'not both'],
  ] as const) {
    expect(() => parseCommandLine([...argv]), message).toThrow(UsageError);
    expect(() => parseCommandLine([...argv])).toThrow(message);
  }
});

test('--http with --auth-issuer/--auth-audience: metadata for its own endpoint, a challenge without a token, a call with one', async () => {
  as = await startFakeAs();
  const run = cli(['serve', SERVER_MODULE, '--http', '0', '--auth-issuer', as.issuer, '--auth-audience', 'rxmcp-cli', '--auth-scopes', 'mcp:use']);
  const url = await run.listening;
  const origin = new URL(url).origin;
  const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
  expect(metadata).toMatchObject({ resource: url, authorization_servers: [as.issuer], scopes_supported: ['mcp:use'] });
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cli', version: '1' } } });
  const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: init });
  const challenged = await post({});
  expect(challenged.status).toBe(401);
  expect(challengeParams(challenged.headers.get('www-authenticate'))).toEqual({ resource_metadata: `${origin}/.well-known/oauth-protected-resource/mcp`, scope: 'mcp:use' });
  const now = Math.floor(Date.now() / 1000);
  const token = (aud: string) => as!.sign({ iss: as!.issuer, sub: 'alice', client_id: 'cli', aud, scope: 'mcp:use', iat: now, exp: now + 600 });
  expect((await post({ authorization: `Bearer ${await token('someone-else')}` })).status).toBe(401);
  const served = await post({ authorization: `Bearer ${await token('rxmcp-cli')}` });
  expect(served.status).toBe(200);
  expect(await served.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'rxmcp' } } });
  // The JWKS came from the issuer's metadata (no --auth-jwks).
  expect(as.hits.get('/.well-known/oauth-authorization-server')).toBe(1);
  process.kill(run.child.pid!, 'SIGTERM');
  expect(await run.exited).toBe(0);
});

test('a non-loopback --host without authentication exits 1 before it listens, saying how to fix it', async () => {
  const run = cli(['serve', SERVER_MODULE, '--http', '0', '--host', '0.0.0.0']);
  expect(await run.exited).toBe(1);
  expect(run.stderr()).toMatch(/without authentication/);
  expect(run.stderr()).toMatch(/--allow-unauthenticated/);
  expect(run.stderr()).not.toMatch(/"msg":"listening"/);
});
