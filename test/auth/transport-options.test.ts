/**
 * The authentication options and guards of the transports: stdio's
 * operator-set principal (reaches handlers and declared scopes; only a real
 * Principal is accepted); the authentication boot guard (a non-loopback
 * listener without an authenticator refuses to start, before it listens,
 * unless requireAuthentication: false; an authenticator never counts as a
 * chosen authorizer); and the validation of authenticator, resource,
 * authorizationServers and requiredScopes (a ConfigError naming each).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { createServer, makePrincipal, Registry, staticTokens } from '../../lib/index.js';
import {
  assertAuthenticationAllowed,
  authenticationRequired,
  createFetchHandler,
  createHttpHandler,
  isLoopbackHost,
  serveHttp,
  serveStdio,
  serveWebSocket,
} from '../../transports/index.js';
import { configErrorOf, configErrorOfAsync } from '../helpers/config-error.js';
import { protectedRegistry } from './protected-http.js';

const tokens = () => staticTokens({ 'token-a': { subject: 'alice', scopes: ['mcp:use'] } });
const AUTH = { authenticator: tokens(), resource: 'http://127.0.0.1:9/mcp', authorizationServers: ['https://as.example.com'] };

describe('stdio: an operator-set principal', () => {
  test('reaches the handler context and its declared scopes apply; nothing on the wire changes it', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const server = createServer({ registry: protectedRegistry() });
    const principal = makePrincipal({ kind: 'local', subject: 'alice', scopes: ['mcp:use'] });
    const handle = serveStdio(server, { input, output, principal });
    const lines: Record<string, unknown>[] = [];
    output.setEncoding('utf8');
    let buffered = '';
    output.on('data', (chunk: string) => {
      buffered += chunk;
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, at)) as Record<string, unknown>);
        buffered = buffered.slice(at + 1);
      }
    });
    const send = (message: unknown) => input.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1', principal: { subject: 'root' } } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: { principal: 'root' } } });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'delete_note' } });
    for (let turn = 0; turn < 1000 && lines.length < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(lines.find((line) => line.id === 1)).toMatchObject({ result: { content: [{ text: 'alice [mcp:use]' }] } });
    expect(JSON.stringify(lines.find((line) => line.id === 2))).toContain('insufficient_scope:notes:write');
    handle.close();
    await handle.closed;
  });

  test('only a principal made by makePrincipal is accepted', () => {
    const server = createServer();
    const forged = { kind: 'local', subject: 'root', scopes: [], audience: [], claims: {}, key: 'forged' };
    const error = configErrorOf(() => serveStdio(server, { input: new PassThrough(), output: new PassThrough(), principal: forged as never }));
    expect(error.option).toBe('principal');
  });
});

describe('the authentication boot guard', () => {
  test('loopback addresses are told from the others', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'api.localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '[::]', '', '10.0.0.1', '192.168.1.2', 'mcp.example.com', '::ffff:10.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
  });

  test('required on a non-loopback address, or wherever requireAuthentication: true says; lifted by requireAuthentication: false', () => {
    expect(authenticationRequired({ host: '0.0.0.0', authenticated: false })).toBe(true);
    expect(authenticationRequired({ host: '127.0.0.1', authenticated: false })).toBe(false);
    expect(authenticationRequired({ host: undefined, authenticated: false })).toBe(false);
    expect(authenticationRequired({ host: '127.0.0.1', authenticated: false, requireAuthentication: true })).toBe(true);
    expect(authenticationRequired({ host: '0.0.0.0', authenticated: false, requireAuthentication: false })).toBe(false);
    expect(() => assertAuthenticationAllowed({ host: '0.0.0.0', authenticated: true })).not.toThrow();
    expect(() => assertAuthenticationAllowed({ host: '0.0.0.0', authenticated: false, requireAuthentication: false })).not.toThrow();
    const error = configErrorOf(() => assertAuthenticationAllowed({ host: '0.0.0.0', authenticated: false, transport: 'HTTP' }));
    expect(error.option).toBe('authenticator');
    expect(error.message).toMatch(/without authentication on "0\.0\.0\.0" \(not a loopback address\)/);
    expect(error.message).toMatch(/requireAuthentication: false/);
  });

  test('serveHttp and serveWebSocket on a non-loopback address without an authenticator refuse before they listen', async () => {
    const server = createServer();
    const http = await configErrorOfAsync(() => serveHttp(server, { host: '0.0.0.0', port: 0 }));
    expect(http.option).toBe('authenticator');
    expect(http.message).toMatch(/over HTTP/);
    const ws = await configErrorOfAsync(() => serveWebSocket(server, { host: '0.0.0.0', port: 0 }));
    expect(ws.option).toBe('authenticator');
    expect(ws.message).toMatch(/over WebSocket/);
  });

  test('requireAuthentication: true refuses a handler without an authenticator wherever it is mounted', () => {
    const server = createServer();
    expect(configErrorOf(() => createHttpHandler(server, { requireAuthentication: true })).option).toBe('authenticator');
    expect(configErrorOf(() => createFetchHandler(server, { requireAuthentication: true })).option).toBe('authenticator');
    expect(() => createHttpHandler(server, { requireAuthentication: true, ...AUTH }).close()).not.toThrow();
  });

  test('an authenticator is not a chosen authorizer: the authorization guard still refuses', () => {
    const server = createServer({ registry: new Registry() });
    const error = configErrorOf(() => createHttpHandler(server, { env: { NODE_ENV: 'production' }, ...AUTH }));
    expect(error.option).toBe('authorizer');
    expect(server.authorizationConfigured()).toBe(false);
  });
});

describe('option validation', () => {
  test.each([
    [{ resource: 'https://mcp.example.com/mcp' }, 'resource'],
    [{ authorizationServers: ['https://as.example.com'] }, 'authorizationServers'],
    [{ requiredScopes: ['a'] }, 'requiredScopes'],
    [{ authenticator: tokens() }, 'resource'],
    [{ authenticator: tokens(), resource: 'https://mcp.example.com/mcp' }, 'authorizationServers'],
    [{ ...AUTH, authenticator: { verify: () => null } }, 'authenticator'],
    [{ ...AUTH, resource: 'http://mcp.example.com/mcp' }, 'resource'],
    [{ ...AUTH, resource: 'https://mcp.example.com/mcp#x' }, 'resource'],
    [{ ...AUTH, authorizationServers: [] }, 'authorizationServers'],
    [{ ...AUTH, authorizationServers: ['not a url'] }, 'authorizationServers'],
    [{ ...AUTH, requiredScopes: ['has space'] }, 'requiredScopes'],
    [{ ...AUTH, requiredScopes: 'mcp:use' }, 'requiredScopes'],
    [{ ...AUTH, requireAuthentication: 'yes' }, 'requireAuthentication'],
  ])('%j is a ConfigError naming %s', (options, option) => {
    expect(configErrorOf(() => createHttpHandler(createServer(), options as never)).option).toBe(option);
  });

  test('the WebSocket transport needs a resource with an authenticator, not authorization servers', async () => {
    const server = createServer();
    expect((await configErrorOfAsync(() => serveWebSocket(server, { port: 0, authenticator: tokens() }))).option).toBe('resource');
  });

  test('declared scopes are validated at registration', () => {
    const handler = () => 'x';
    expect(configErrorOf(() => new Registry().registerTool({ name: 't', requiredScopes: ['a b'], handler })).option).toBe('requiredScopes');
    expect(configErrorOf(() => new Registry().registerResource({ uri: 'u://x', name: 'x', requiredScopes: 'a' as never, read: handler })).option).toBe('requiredScopes');
    expect(configErrorOf(() => new Registry().registerResourceTemplate({ uriTemplate: 'u://{x}', name: 'x', requiredScopes: [''], read: handler })).option).toBe('requiredScopes');
    expect(configErrorOf(() => new Registry().registerPrompt({ name: 'p', requiredScopes: ['"q"'], get: handler })).option).toBe('requiredScopes');
  });

  test('serveHttp derives the resource from its bound URL when an authenticator comes without one', async () => {
    const server = createServer();
    const handle = await serveHttp(server, { port: 0, authenticator: tokens(), authorizationServers: ['https://as.example.com'] });
    try {
      const document = (await (await fetch(`http://127.0.0.1:${handle.port}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string };
      expect(document.resource).toBe(handle.url);
      const challenged = await fetch(handle.url, { method: 'POST' });
      expect(challenged.headers.get('www-authenticate')).toContain(`resource_metadata="http://127.0.0.1:${handle.port}/.well-known/oauth-protected-resource/mcp"`);
    } finally {
      await handle.close();
    }
    expect((await configErrorOfAsync(() => serveHttp(server, { host: '0.0.0.0', port: 0, authenticator: tokens(), authorizationServers: ['https://as.example.com'] }))).option).toBe('resource');
  });
});
