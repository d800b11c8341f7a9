/**
 * The wire shapes a resource server answers with: bearer extraction (RFC
 * 6750 §2.1) and the challenge (RFC 6750 §3 + RFC 9728 §5.1), exactly.
 */
import { describe, expect, test } from 'vitest';
import { bearerToken, challengeHeader, renderChallenge, type AuthFailure } from '../../lib/index.js';

const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

describe('bearerToken', () => {
  test('reads the Authorization header, any case of name and scheme', () => {
    expect(bearerToken({ headers: { authorization: 'Bearer abc.DEF-_~+/==' } })).toEqual({ token: 'abc.DEF-_~+/==' });
    expect(bearerToken({ headers: { Authorization: 'bearer  xyz' } })).toEqual({ token: 'xyz' });
    expect(bearerToken({ headers: { authorization: ['Bearer one'] } })).toEqual({ token: 'one' });
  });

  test('no credentials, or another scheme: 401 without an error code', () => {
    expect(bearerToken({ headers: {} })).toEqual({ status: 401, description: 'authentication required' });
    expect(bearerToken({ headers: { authorization: 'Basic Zm9vOmJhcg==' } })).toEqual({ status: 401, description: 'a Bearer token is required' });
    expect(bearerToken({ headers: { authorization: 'Bearerxyz' } })).toEqual({ status: 401, description: 'a Bearer token is required' });
  });

  test('malformed: 400 invalid_request', () => {
    const bad = (description: string) => ({ status: 400, error: 'invalid_request', description });
    expect(bearerToken({ headers: { authorization: 'Bearer' } })).toEqual(bad('the Bearer token is empty'));
    expect(bearerToken({ headers: { authorization: 'Bearer a b' } })).toEqual(bad('the Bearer token is malformed'));
    expect(bearerToken({ headers: { authorization: 'Bearer a"b' } })).toEqual(bad('the Bearer token is malformed'));
    expect(bearerToken({ headers: { authorization: ['Bearer a', 'Bearer b'] } })).toEqual(bad('more than one Authorization header'));
    expect(bearerToken({ headers: { authorization: 'Bearer ok' }, url: '/mcp?x=1&access_token=leak' })).toEqual(
      bad('access tokens are not accepted in the query string'),
    );
    expect(bearerToken({ headers: { authorization: 'Bearer ok' }, url: '/mcp?x=1' })).toEqual({ token: 'ok' });
  });
});

describe('challenge', () => {
  test('no credentials: resource_metadata and scope, no error code (RFC 6750 §3.1)', () => {
    const challenge = renderChallenge({ status: 401, description: 'authentication required' }, { resourceMetadata: PRM, scope: ['files:read', 'files:write'] });
    expect(challenge).toEqual({
      status: 401,
      headers: {
        'content-type': 'application/json',
        'www-authenticate': `Bearer resource_metadata="${PRM}", scope="files:read files:write"`,
      },
      body: '{"error_description":"authentication required"}',
    });
  });

  test('invalid token: error and error_description follow', () => {
    const failure: AuthFailure = { status: 401, error: 'invalid_token', description: 'the token has expired' };
    expect(challengeHeader(failure, { resourceMetadata: PRM })).toBe(
      `Bearer resource_metadata="${PRM}", error="invalid_token", error_description="the token has expired"`,
    );
    expect(JSON.parse(renderChallenge(failure).body)).toEqual({ error: 'invalid_token', error_description: 'the token has expired' });
    expect(challengeHeader(failure)).toBe('Bearer error="invalid_token", error_description="the token has expired"');
  });

  test('insufficient scope: 403 with the failure own scopes (all of them) over the default', () => {
    const failure: AuthFailure = { status: 403, error: 'insufficient_scope', description: 'needs more', scope: ['a', 'b', 'a'] };
    const challenge = renderChallenge(failure, { resourceMetadata: PRM, scope: ['default'] });
    expect(challenge.status).toBe(403);
    expect(challenge.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${PRM}", scope="a b", error="insufficient_scope", error_description="needs more"`,
    );
  });

  test('values that could break the header are made to fit (no quote, no backslash, printable ASCII only)', () => {
    const failure: AuthFailure = { status: 401, error: 'invalid_token', description: 'bad "token"\\\r\nSet-Cookie: x=1 é' };
    expect(challengeHeader(failure)).toBe(`Bearer error="invalid_token", error_description="bad 'token'???Set-Cookie: x=1 ?"`);
    // A scope that is not a scope token is left out rather than mangled.
    expect(challengeHeader({ status: 401, description: 'x' }, { scope: ['ok', 'bad scope', 'q"uote', ''] })).toBe('Bearer scope="ok"');
    expect(challengeHeader({ status: 401, description: 'x' })).toBe('Bearer');
  });

  test('400 invalid_request carries the challenge; 500 carries none and says server_error', () => {
    expect(renderChallenge({ status: 400, error: 'invalid_request', description: 'two headers' }, { resourceMetadata: PRM }).headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${PRM}", error="invalid_request", error_description="two headers"`,
    );
    expect(renderChallenge({ status: 500, description: 'the token could not be introspected' }, { resourceMetadata: PRM })).toEqual({
      status: 500,
      headers: { 'content-type': 'application/json' },
      body: '{"error":"server_error","error_description":"the token could not be introspected"}',
    });
  });
});
