/**
 * The modern envelope (streams/modern/envelope.ts): every required key, every
 * malformed one, answered before any method runs, on every way in.
 */
import { describe, expect, test } from 'vitest';
import { type McpServer } from '../../lib/index.js';
import type { Message } from '../contract/helpers.js';
import { CAPS, eraServer, INFO, LEVEL, MODERN, modernRpc, PV, type ModernOptions } from './modern-helpers.js';

async function reply(server: McpServer, options: ModernOptions, method = 'tools/call'): Promise<Message> {
  return (await server.handleMessage(modernRpc(1, method, { name: 'echo', arguments: { text: 'ran' } }, options))) as Message;
}

function malformed(key: string, problem: string) {
  return { code: -32602, message: `Invalid params: _meta["${key}"] ${problem}`, data: { key } };
}

describe('a request that claims the modern era', () => {
  test.each<[string, ModernOptions, ReturnType<typeof malformed>]>([
    ['a protocolVersion that is not a string', { meta: { [PV]: 20260728 } }, malformed(PV, 'must be a string')],
    ['a null protocolVersion', { meta: { [PV]: null } }, malformed(PV, 'must be a string')],
    ['no clientCapabilities', { meta: { [CAPS]: undefined } }, malformed(CAPS, 'is required')],
    ['clientCapabilities that are not an object', { meta: { [CAPS]: [] } }, malformed(CAPS, 'must be an object')],
    ['an elicitation capability that is not an object', { capabilities: { elicitation: true } }, malformed(CAPS, '.elicitation must be an object')],
    ['an extensions member that is not an object', { capabilities: { extensions: 'x' } }, malformed(CAPS, '.extensions must be an object')],
    ['clientInfo without a version', { meta: { [INFO]: { name: 'x' } } }, malformed(INFO, 'must be an object with string name and version')],
    ['clientInfo as a string', { meta: { [INFO]: 'me' } }, malformed(INFO, 'must be an object with string name and version')],
    ['an unknown logLevel', { logLevel: 'verbose' }, malformed(LEVEL, 'is not a log level')],
  ])('%s: -32602 naming the key, and nothing runs', async (_what, options, error) => {
    const { server, runs } = eraServer();
    expect((await reply(server, options)).error).toStrictEqual(error);
    expect(runs).toEqual([]);
  });

  test('clientCapabilities too big once parsed: -32602 (the object is never walked past the bound)', async () => {
    const { server } = eraServer();
    const huge = { experimental: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, { v: i }])) };
    expect((await reply(server, { capabilities: huge })).error).toStrictEqual(malformed(CAPS, 'is too large (over 65536 bytes once parsed)'));
  });

  test.each(['2025-11-25', '2024-11-05', '2099-01-01', ''])('protocolVersion %j: -32022 with the modern revisions and the one requested', async (version) => {
    const { server, runs } = eraServer();
    expect((await reply(server, { meta: { [PV]: version } })).error).toStrictEqual({
      code: -32022,
      message: `Unsupported protocol version: ${version} (supported: ${MODERN})`,
      data: { supported: [MODERN], requested: version },
    });
    expect(runs).toEqual([]);
  });

  test('the version is checked before the rest of the envelope', async () => {
    const { server } = eraServer();
    expect((await reply(server, { meta: { [PV]: '1999-01-01', [CAPS]: undefined } })).error.code).toBe(-32022);
  });

  test('clientInfo is optional (never required), unknown capabilities and extra _meta keys are fine', async () => {
    const { server, runs } = eraServer();
    const ok = await reply(server, { meta: { [INFO]: undefined, 'com.example/x': 1 }, capabilities: { 'com.example/cap': 1, experimental: {} } });
    expect(ok.result.content[0].text).toBe('ran');
    expect(runs).toEqual(['echo']);
  });

  test('an envelope error keeps the request id, even on a method that does not exist', async () => {
    const { server } = eraServer();
    const answer = (await server.handleMessage(modernRpc('abc', 'no/such', {}, { logLevel: 'x' }))) as Message;
    expect(answer).toMatchObject({ id: 'abc', error: { code: -32602 } });
  });

  test('a claim under _meta that is not an object is no claim: the request is legacy', async () => {
    const { server } = eraServer();
    const legacy = (await server.handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: [PV] } })) as Message;
    expect(legacy.result).not.toHaveProperty('resultType');
  });
});
