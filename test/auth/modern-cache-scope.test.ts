/**
 * On the modern wire a list or read an authenticated caller gets is shaped by
 * its principal (declared requiredScopes filter it), so it is never
 * `public`, whatever the cacheHints say; an unauthenticated caller of a
 * server without authorizers gets the configured scope.
 */
import { describe, expect, test } from 'vitest';
import { createServer, makePrincipal, Registry } from '../../lib/index.js';
import { modernRpc } from '../era/modern-helpers.js';

const alice = makePrincipal({ kind: 'oauth', issuer: 'https://as.example.com', subject: 'alice', clientId: 'app', scopes: ['notes:read'] });

function server() {
  const registry = new Registry()
    .registerTool({ name: 'open', handler: () => 'ok' })
    .registerTool({ name: 'notes', requiredScopes: ['notes:read'], handler: () => 'ok' });
  return createServer({ registry, cacheHints: { ttlMs: 5000, cacheScope: 'public' } });
}

describe('cacheScope on the modern wire with a principal', () => {
  test('an authenticated caller gets private, an anonymous one the configured public', async () => {
    const s = server();
    const anonymous = (await s.handleMessage(modernRpc(1, 'tools/list'))) as { result: Record<string, unknown> };
    expect(anonymous.result).toMatchObject({ cacheScope: 'public', ttlMs: 5000 });
    const authenticated = (await s.handleMessage(modernRpc(2, 'tools/list'), { principal: alice })) as { result: Record<string, unknown> };
    expect(authenticated.result).toMatchObject({ cacheScope: 'private', ttlMs: 5000 });
    expect((authenticated.result.tools as { name: string }[]).map((t) => t.name)).toEqual(['open', 'notes']);
  });
});
