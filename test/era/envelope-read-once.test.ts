/**
 * perMessageEraWith (streams/stages/decide-era.ts): the modern HTTP transport
 * reads a request's envelope to decide its era; the core then takes that
 * envelope for that request (recognised by its params object) instead of
 * reading it again. Once only; everything else is decided per message.
 */
import { describe, expect, test } from 'vitest';
import { classifyMessage } from '../../streams/stages/classify-envelope.js';
import { perMessageEraWith } from '../../streams/stages/decide-era.js';
import { readEnvelope } from '../../streams/modern/envelope.js';
import type { ModernRequest } from '../../lib/protocol/modern.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
};

const request = (id: number, params: Record<string, unknown>) => classifyMessage({ jsonrpc: '2.0', id, method: 'tools/list', params });

describe('perMessageEraWith', () => {
  test('the request whose params were read gets that envelope, as read (not read again)', () => {
    const params = { _meta: META };
    const read = readEnvelope(1, params) as ModernRequest;
    const decided = perMessageEraWith({ params, envelope: read }).decide(request(1, params));
    expect(decided).toStrictEqual({ kind: 'request', id: 1, method: 'tools/list', params, era: 'modern', modern: read });
    expect(decided.kind === 'request' && decided.modern).toBe(read);
  });

  test('only once: the same params again, or other params, are read per message', () => {
    const params = { _meta: META };
    const read = readEnvelope(1, params) as ModernRequest;
    const decision = perMessageEraWith({ params, envelope: read });
    decision.decide(request(1, params));
    const again = decision.decide(request(2, params));
    expect(again.kind === 'request' && again.modern).not.toBe(read);
    expect(again).toMatchObject({ era: 'modern', modern: { protocolVersion: '2026-07-28', clientInfo: { name: 'c', version: '1' } } });
    const other = perMessageEraWith({ params, envelope: read }).decide(request(3, { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' } }));
    expect(other).toMatchObject({ kind: 'invalid', reply: { id: 3, error: { code: -32022 } } });
    expect(perMessageEraWith({ params, envelope: read }).decide(request(4, {}))).toMatchObject({ kind: 'request', era: 'legacy' });
  });

  test('without a read envelope it is the per-message decision', () => {
    expect(perMessageEraWith(undefined).pinned).toBeUndefined();
    expect(perMessageEraWith(undefined).decide(request(5, { _meta: META }))).toMatchObject({ era: 'modern' });
  });
});
