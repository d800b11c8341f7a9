import { describe, expect, test } from 'vitest';
import { allowlist, ConfigError, createServer, Registry } from '../../lib/index.js';
import { configErrorOf } from '../helpers/config-error.js';
import { assertNetworkBootAllowed, authorizationRequired, createHttpHandler, serveHttp } from '../../transports/index.js';

const PRODUCTION = { NODE_ENV: 'production' };

function unguarded() {
  return createServer({ registry: new Registry() });
}

function guarded() {
  return createServer({
    registry: new Registry(),
    authorizer: allowlist(['echo']),
    authorizerSource: 'configured',
    readAuthorizer: () => 'allow',
  });
}

describe('network boot guard', () => {
  test('authorization is required unless NODE_ENV is development or test, or requireAuthorization says otherwise', () => {
    expect(authorizationRequired({ env: PRODUCTION })).toBe(true);
    expect(authorizationRequired({ env: {} })).toBe(true);
    expect(authorizationRequired({ env: { NODE_ENV: 'staging' } })).toBe(true);
    expect(authorizationRequired({ env: { NODE_ENV: 'development' } })).toBe(false);
    expect(authorizationRequired({ env: { NODE_ENV: 'test' } })).toBe(false);
    expect(authorizationRequired({ env: PRODUCTION, requireAuthorization: false })).toBe(false);
    expect(authorizationRequired({ env: { NODE_ENV: 'test' }, requireAuthorization: true })).toBe(true);
  });

  test('refuses a server with neither authorizer, naming both and how to configure them', () => {
    const error = configErrorOf(() => createHttpHandler(unguarded(), { env: PRODUCTION }));
    expect(error.option).toBe('authorizer');
    expect(error.message).toMatch(/over HTTP/);
    expect(error.message).toMatch(/server\.authorizationConfigured\(\) is false/);
    expect(error.message).toMatch(/server\.readAuthorizationConfigured\(\) is false/);
    expect(error.message).toMatch(/authorizerSource: 'configured'/);
    expect(error.message).toMatch(/readAuthorizer/);
    expect(error.message).toMatch(/requireAuthorization: false/);
  });

  test('a fallback authorizer (authorizerSource default) does not count as configured', () => {
    const server = createServer({ registry: new Registry(), authorizer: () => 'allow', readAuthorizer: () => 'allow' });
    const error = configErrorOf(() => createHttpHandler(server, { env: PRODUCTION }));
    expect(error.option).toBe('authorizer');
    expect(error.message).not.toMatch(/readAuthorizationConfigured/);
  });

  test('a configured tool authorizer without a read authorizer is still refused, naming readAuthorizer', () => {
    const server = createServer({ registry: new Registry(), authorizer: () => 'allow', authorizerSource: 'configured' });
    const error = configErrorOf(() => createHttpHandler(server, { env: PRODUCTION }));
    expect(error.option).toBe('readAuthorizer');
    expect(error.message).not.toMatch(/authorizationConfigured\(\) is false;/);
  });

  test('passes a server with both authorizers in production', () => {
    const handler = createHttpHandler(guarded(), { env: PRODUCTION });
    handler.close();
  });

  test('NODE_ENV development/test and requireAuthorization: false exempt; requireAuthorization: true does not', () => {
    createHttpHandler(unguarded(), { env: { NODE_ENV: 'development' } }).close();
    createHttpHandler(unguarded(), { env: { NODE_ENV: 'test' } }).close();
    createHttpHandler(unguarded(), { env: PRODUCTION, requireAuthorization: false }).close();
    expect(() => createHttpHandler(unguarded(), { env: { NODE_ENV: 'test' }, requireAuthorization: true })).toThrow(ConfigError);
  });

  test('reads process.env by default (vitest runs with NODE_ENV=test)', () => {
    expect(process.env.NODE_ENV).toBe('test');
    createHttpHandler(unguarded()).close();
    expect(() => assertNetworkBootAllowed(unguarded())).not.toThrow();
  });

  test('serveHttp refuses before it listens', async () => {
    await expect(serveHttp(unguarded(), { port: 0, env: PRODUCTION })).rejects.toBeInstanceOf(ConfigError);
  });

  test('bad transport options are refused naming the option', () => {
    expect(configErrorOf(() => createHttpHandler(guarded(), { maxSessions: 0 })).option).toBe('maxSessions');
    expect(configErrorOf(() => createHttpHandler(guarded(), { endpoint: 'mcp' })).option).toBe('endpoint');
    expect(configErrorOf(() => createHttpHandler(guarded(), { bogus: 1 } as never)).option).toBe('bogus');
  });
});
