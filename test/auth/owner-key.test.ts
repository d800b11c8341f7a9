/**
 * The one identity rule every share and every owner counts by (issue 17):
 * the principal when authenticated, whatever its address or connection; else
 * the peer; else the connection.
 */
import { describe, expect, test } from 'vitest';
import { ownerKey } from '../../lib/auth/owner-key.js';
import { makePrincipal } from '../../lib/index.js';

const alice = makePrincipal({ issuer: 'https://as.example', subject: 'alice', clientId: 'app' });
const bob = makePrincipal({ issuer: 'https://as.example', subject: 'bob', clientId: 'app' });

describe('ownerKey', () => {
  test('a principal outranks the peer and the connection: the same owner from any address, distinct owners on one address', () => {
    expect(ownerKey(alice, 'addr:127.0.0.1')).toBe(`principal:${alice.key}`);
    expect(ownerKey(alice, 'addr:198.51.100.7')).toBe(ownerKey(alice, 'addr:127.0.0.1'));
    expect(ownerKey(alice, undefined, 'conn-1')).toBe(ownerKey(alice, 'addr:127.0.0.1'));
    expect(ownerKey(bob, 'addr:127.0.0.1')).not.toBe(ownerKey(alice, 'addr:127.0.0.1'));
  });

  test('a refreshed token of the same user and client (new scopes, new expiry, the same key) is the same owner', () => {
    const refreshed = makePrincipal({ issuer: 'https://as.example', subject: 'alice', clientId: 'app', scopes: ['notes:read'], expiresAt: 1 });
    expect(ownerKey(refreshed, 'addr:203.0.113.1')).toBe(ownerKey(alice, 'addr:127.0.0.1'));
  });

  test('without a principal the peer is the owner, as it is; without a peer the connection', () => {
    expect(ownerKey(undefined, 'addr:127.0.0.1')).toBe('addr:127.0.0.1');
    expect(ownerKey(undefined, 'addr:127.0.0.1', 'conn-1')).toBe('addr:127.0.0.1');
    expect(ownerKey(undefined, undefined, 'conn-1')).toBe('conn-1');
  });
});
