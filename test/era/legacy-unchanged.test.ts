/**
 * "No legacy-era client may notice any change": a fixed legacy script, sent
 * over every way into the core, and every byte the server wrote back. The
 * file snapshot beside this test was recorded on the code before the
 * modern era existed (commit d0a4c28) and is compared byte for byte, so any
 * change a legacy client could see fails here.
 */
import { describe, expect, test } from 'vitest';
import { allowlist, encodeMessage, Registry, ResourceNotFoundError, type McpServer, type TransportKind } from '../../lib/index.js';
import { makeServer, note, Peer, rpc, settle } from '../contract/helpers.js';

function legacyServer(): McpServer {
  const registry = new Registry()
    .registerTool({ name: 'echo', handler: ({ text }) => String(text) })
    .registerTool({
      name: 'chatty',
      handler: (_args, ctx) => {
        ctx.log('debug', 'quiet');
        ctx.log('error', { loud: true }, 'tests');
        ctx.progress(1, 2, 'half');
        return 'said';
      },
    })
    .registerTool({ name: 'ask_root', handler: async (_args, ctx) => JSON.stringify(await ctx.listRoots()) })
    .registerTool({ name: 'wipe', annotations: { destructiveHint: true }, handler: () => 'wiped' })
    .registerTool({ name: 'crash', handler: () => { throw new Error('boom'); } })
    .registerResource({ uri: 'demo://a', name: 'a', mimeType: 'text/plain', read: () => 'A' })
    .registerResource({ uri: 'demo://secret', name: 'secret', read: () => 'S' })
    .registerResourceTemplate({
      uriTemplate: 'demo://notes/{id}',
      name: 'note',
      read: (_uri, { id = '' }) => {
        if (id !== '1') throw new ResourceNotFoundError(`no note ${id}`);
        return 'note one';
      },
      complete: { id: (value) => ['1', '12', '2'].filter((v) => v.startsWith(value)) },
    })
    .registerPrompt({ name: 'greet', arguments: [{ name: 'who', required: true }], get: ({ who }) => `Hello ${who}` });
  return makeServer({
    registry,
    name: 'legacy-fixture',
    serverVersion: '9.9.9',
    instructions: 'be nice',
    authorizer: allowlist(['echo', 'chatty', 'ask_root', 'crash'], { ask: { wipe: 'Wipe it?' } }),
    authorizerSource: 'configured',
    readAuthorizer: (method, args) => (args.uri === 'demo://secret' ? { deny: 'not for you' } : 'allow'),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
}

const progress = { _meta: { progressToken: 'p1' } };

/** The script: what a legacy client might send, in order, including its mistakes. */
const SCRIPT: unknown[] = [
  rpc(1, 'tools/list'),
  note('notifications/initialized'),
  rpc(2, 'server/discover'),
  rpc(3, 'ping'),
  rpc('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {}, roots: {} }, clientInfo: { name: 'legacy', version: '1' } }),
  note('notifications/initialized'),
  rpc(4, 'tools/list'),
  rpc(5, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
  rpc(6, 'tools/call', { name: 'nope' }),
  rpc(7, 'tools/call', { name: 'chatty', ...progress }),
  rpc(8, 'logging/setLevel', { level: 'warning' }),
  rpc(9, 'tools/call', { name: 'chatty' }),
  rpc(10, 'logging/setLevel', { level: 'loud' }),
  rpc(11, 'resources/list'),
  rpc(12, 'resources/templates/list'),
  rpc(13, 'resources/read', { uri: 'demo://a' }),
  rpc(14, 'resources/read', { uri: 'demo://secret' }),
  rpc(15, 'resources/read', { uri: 'demo://missing' }),
  rpc(16, 'resources/read', { uri: 'demo://notes/9' }),
  rpc(17, 'resources/subscribe', { uri: 'demo://a' }),
  rpc(18, 'resources/unsubscribe', { uri: 'demo://a' }),
  rpc(19, 'prompts/list'),
  rpc(20, 'prompts/get', { name: 'greet', arguments: { who: 'you' } }),
  rpc(21, 'prompts/get', { name: 'greet' }),
  rpc(22, 'completion/complete', { ref: { type: 'ref/resource', uri: 'demo://notes/{id}' }, argument: { name: 'id', value: '1' } }),
  rpc(23, 'server/discover'),
  rpc(24, 'server/discover', { _meta: { progressToken: 3 } }),
  rpc(25, 'tools/call', { name: 'crash' }),
  rpc(26, 'no/such'),
  { jsonrpc: '2.0', id: 27 },
  rpc(28, 'tools/call', { name: 'wipe' }),
  rpc(29, 'tools/call', { name: 'ask_root' }),
];

/** Server-to-client request ids are random: each is shown as the order it was first seen in. */
function stable(lines: string[]): string[] {
  const seen = new Map<string, string>();
  return lines.map((line) =>
    line.replace(/rxmcp-req-[A-Za-z0-9_-]+|rxmcp-elicit-[A-Za-z0-9_-]+/g, (id) => {
      if (!seen.has(id)) seen.set(id, `<server-request-${seen.size + 1}>`);
      return seen.get(id)!;
    }),
  );
}

async function runOver(transport: TransportKind): Promise<string[]> {
  const server = legacyServer();
  const peer = new Peer(server, { connId: `legacy-${transport}`, transport });
  for (const message of SCRIPT) {
    peer.send(message);
    await settle();
  }
  // Answer whatever the server asked (the approval, the roots), as a legacy client would.
  for (const asked of peer.received.filter((m) => 'method' in m && 'id' in m)) {
    const result = asked.method === 'elicitation/create' ? { action: 'accept', content: { approve: true } } : { roots: [{ uri: 'file:///r' }] };
    peer.send({ jsonrpc: '2.0', id: asked.id, result });
    await settle();
  }
  await settle();
  peer.close();
  return stable(peer.received.map((m) => encodeMessage(m)!));
}

describe('a legacy client sees the same bytes as before the modern era', () => {
  test.each(['stdio', 'ws', 'sse', 'http', 'memory', 'unknown'] as const)('over a connection declared %s', async (transport) => {
    const lines = await runOver(transport);
    await expect(lines.join('\n') + '\n').toMatchFileSnapshot(`./__snapshots__/legacy-script.${transport}.jsonl`);
  });

  test('through handleMessage (a direct caller)', async () => {
    const server = legacyServer();
    const lines: string[] = [];
    for (const message of SCRIPT) {
      const reply = await server.handleMessage(message, { connId: 'direct' });
      lines.push(reply === null ? 'null' : encodeMessage(reply)!);
    }
    await expect(stable(lines).join('\n') + '\n').toMatchFileSnapshot('./__snapshots__/legacy-script.direct.jsonl');
  });
});
