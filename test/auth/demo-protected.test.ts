/**
 * The protected demo as the README runs it: `node dist/examples/demo/main.js
 * --port 0 --auth-issuer ISS --auth-audience AUD`, against the loopback fake
 * issuer (JWKS from its metadata), boot guards really on
 * (NODE_ENV=production). Streamable HTTP and WebSocket both challenge a
 * caller without a token; a token without `notes:write` does not see
 * delete_note; one with it does. Needs the build (`npm test` builds first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import WebSocket from 'ws';
import { parseDemoArgs, UsageError } from '../../examples/demo/args.js';
import { startFakeAs, type FakeAs } from './fake-as.js';
import { challengeParams } from './protected-http.js';

const MAIN = fileURLToPath(new URL('../../dist/examples/demo/main.js', import.meta.url));

let child: ChildProcess | undefined;
let as: FakeAs | undefined;
afterEach(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  await as?.close();
  as = undefined;
});

test('the demo parses its auth flags (network only; the audience defaults to the /mcp URL)', () => {
  expect(parseDemoArgs(['--auth-issuer', 'https://as.example.com', '--port', '3001'])).toEqual({
    kind: 'serve',
    transport: 'network',
    port: 3001,
    host: '127.0.0.1',
    auth: { issuer: 'https://as.example.com', audience: 'http://127.0.0.1:3001/mcp', scopes: [] },
  });
  expect(() => parseDemoArgs(['--stdio', '--auth-issuer', 'https://as.example.com'])).toThrow(UsageError);
  expect(() => parseDemoArgs(['--auth-scopes', 'a'])).toThrow('need --auth-issuer');
});

test('the protected demo challenges without a token and lists delete_note only to a token with notes:write', async () => {
  as = await startFakeAs();
  child = spawn(process.execPath, [MAIN, '--port', '0', '--auth-issuer', as.issuer, '--auth-audience', 'rxmcp-demo'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn' },
  });
  let stderr = '';
  const running = child;
  const urls = await new Promise<{ mcp: string; ws: string }>((resolve, reject) => {
    running.on('exit', (code) => reject(new Error(`demo exited early (${code}): ${stderr}`)));
    running.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const mcp = /Streamable HTTP\s+(\S+)/.exec(stderr)?.[1];
      const ws = /WebSocket\s+(\S+)/.exec(stderr)?.[1];
      if (mcp && ws && stderr.includes('Stop it')) resolve({ mcp, ws });
    });
  });
  const fake = as;
  const now = Math.floor(Date.now() / 1000);
  const token = (scope: string) => fake.sign({ iss: fake.issuer, sub: 'alice', client_id: 'demo', aud: 'rxmcp-demo', scope, iat: now, exp: now + 600 });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(urls.mcp, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(body) });
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'demo-test', version: '1' } } };

  const challenged = await post(init);
  expect(challenged.status).toBe(401);
  expect(challengeParams(challenged.headers.get('www-authenticate')).resource_metadata).toBe(`${new URL(urls.mcp).origin}/.well-known/oauth-protected-resource/mcp`);
  const metadata = (await (await fetch(`${new URL(urls.mcp).origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { scopes_supported: string[] };
  expect(metadata.scopes_supported).toEqual(['notes:write']);

  const socket = new WebSocket(urls.ws, 'mcp');
  socket.on('error', () => {});
  const [, refused] = (await once(socket, 'unexpected-response')) as [unknown, IncomingMessage];
  expect(refused.statusCode).toBe(401);
  refused.resume();

  const tools = async (scope: string) => {
    const bearer = { authorization: `Bearer ${await token(scope)}` };
    const opened = await post(init, bearer);
    expect(opened.status).toBe(200);
    await opened.json();
    const session = opened.headers.get('mcp-session-id')!;
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { ...bearer, 'mcp-session-id': session })).body?.cancel();
    const listed = (await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...bearer, 'mcp-session-id': session })).json()) as {
      result: { tools: { name: string }[] };
    };
    return listed.result.tools.map((tool) => tool.name);
  };
  expect(await tools('')).not.toContain('delete_note');
  expect(await tools('notes:write')).toContain('delete_note');
  child.kill('SIGTERM');
  expect((await once(child, 'exit'))[0]).toBe(0);
});
