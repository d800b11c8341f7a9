/**
 * Issue 21.1: an approval question that names what it approves, and an
 * allowlist that does not fail silently. `allowlist(..., { ask })` takes a
 * function of the arguments; a name matching no tool, and a tool no rule
 * mentions, are warned once through the server's logger (at start, and per
 * tool for tools registered later).
 */
import { describe, expect, test } from 'vitest';
import { allowlist, ConfigError, Registry, type AuthorizationContext } from '../../lib/index.js';
import { NOT_CONNECTED, ELICITING, Peer, deniedResult, makeServer, rpc, settle } from '../contract/helpers.js';
import { compileCodeBlocks, docCodeBlocks } from '../helpers/readme-blocks.js';
import { recordingLogger } from '../helpers/recording-logger.js';

const quiet = () => 'ok';

function notesRegistry(): Registry {
  return new Registry()
    .registerTool({ name: 'list_notes', handler: quiet })
    .registerTool({ name: 'delete_note', annotations: { destructiveHint: true }, handler: ({ id }) => `deleted ${String(id)}` });
}

describe('an ask built from the arguments', () => {
  test('the elicitation names the note the call would delete', async () => {
    const seen: AuthorizationContext[] = [];
    const server = makeServer({
      registry: notesRegistry(),
      authorizer: allowlist(['list_notes'], {
        ask: {
          delete_note: (args, ctx) => {
            seen.push(ctx);
            return `Delete note ${String(args.id)}? This cannot be undone.`;
          },
        },
      }),
      logger: recordingLogger().logger,
    });
    const peer = new Peer(server, { connId: 'c1' });
    await peer.initialize(ELICITING);
    peer.send(rpc(1, 'tools/call', { name: 'delete_note', arguments: { id: '3' } }));
    await settle();
    expect(peer.elicitations().map((m) => m.params.message)).toEqual(['Delete note 3? This cannot be undone.']);
    expect(seen.map((ctx) => ctx.connId)).toEqual(['c1']);
  });

  test('a call that cannot be asked is denied with the built question as its prompt', async () => {
    const server = makeServer({
      registry: notesRegistry(),
      authorizer: allowlist([], { ask: { delete_note: ({ id }) => `Delete note ${String(id)}?` } }),
      logger: recordingLogger().logger,
    });
    const reply = await server.handleMessage(rpc(1, 'tools/call', { name: 'delete_note', arguments: { id: '7' } }));
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 1, result: deniedResult('delete_note', 'ask', NOT_CONNECTED, 'Delete note 7?') });
  });

  test('a question that throws denies the call as a throwing authorizer does; a fixed string still works', async () => {
    const server = makeServer({
      registry: notesRegistry(),
      authorizer: allowlist([], { ask: { delete_note: () => { throw new Error('no id'); }, list_notes: 'List them?' } }),
      logger: recordingLogger().logger,
    });
    const crashed = await server.handleMessage(rpc(1, 'tools/call', { name: 'delete_note', arguments: {} }));
    expect(crashed).toStrictEqual({ jsonrpc: '2.0', id: 1, result: deniedResult('delete_note', 'deny', 'authorizer_failed') });
    const fixed = await server.handleMessage(rpc(2, 'tools/call', { name: 'list_notes' }));
    expect(fixed).toStrictEqual({ jsonrpc: '2.0', id: 2, result: deniedResult('list_notes', 'ask', NOT_CONNECTED, 'List them?') });
  });

  test('an ask that is neither text nor a function is refused when the allowlist is built', () => {
    expect(() => allowlist([], { ask: { delete_note: 42 as never } })).toThrow(ConfigError);
  });
});

describe('an allowlist that matches nothing is said, once', () => {
  test('at start: a name no tool has, and a tool no rule mentions, one line each', () => {
    const registry = notesRegistry().registerTool({ name: 'export_notes', handler: quiet });
    const { logger, at } = recordingLogger();
    makeServer({ registry, authorizer: allowlist(['list_notse'], { ask: { delete_note: 'Delete?' } }), logger });
    expect(at('warn')).toEqual([
      'allowlist names "list_notse", but no tool is registered under that name: a typo? (registered: "list_notes", "delete_note", "export_notes")',
      'no allowlist rule mentions "list_notes", "export_notes": denied (not_allowlisted) and hidden from tools/list; add them to the allowlist\'s names or its ask to serve them',
    ]);
  });

  test('a tool registered later that no rule mentions is warned once per tool; a mentioned one is not', () => {
    const registry = notesRegistry();
    const { logger, at } = recordingLogger();
    makeServer({ registry, authorizer: allowlist(['list_notes', 'archive'], { ask: { delete_note: 'Delete?' } }), logger });
    const atStart = at('warn').length;
    registry.registerTool({ name: 'archive', handler: quiet });
    registry.registerTool({ name: 'rename_note', handler: quiet });
    registry.registerTool({ name: 'rename_note', handler: quiet }, { replace: true });
    expect(at('warn').slice(atStart)).toEqual([
      'tool "rename_note" was registered, but no allowlist rule mentions it: denied (not_allowlisted) and hidden from tools/list; add it to the allowlist\'s names or its ask to serve it',
    ]);
  });

  test('a server created before its tools are registered starts at the first tools, not with every name unknown', () => {
    const registry = new Registry();
    const { logger, at } = recordingLogger();
    makeServer({ registry, authorizer: allowlist(['list_notes', 'delete_note']), logger });
    expect(at('warn')).toEqual([]);
    registry.registerTools([
      { name: 'list_notes', handler: quiet },
      { name: 'delete_note', handler: quiet },
    ]);
    expect(at('warn')).toEqual([]);
  });

  test('an allowlist that covers every tool, and an authorizer of the owner\'s own, say nothing', () => {
    const covered = recordingLogger();
    makeServer({ registry: notesRegistry(), authorizer: allowlist(['list_notes'], { ask: { delete_note: 'Delete?' } }), logger: covered.logger });
    const custom = recordingLogger();
    makeServer({ registry: notesRegistry(), authorizer: () => 'allow', logger: custom.logger });
    expect([...covered.lines, ...custom.lines]).toEqual([]);
  });
});

describe('the guides', () => {
  test('the Authorization section (a custom authorizer naming the note) and the API tour compile', async () => {
    const blocks = [...docCodeBlocks('docs/authorization.md', 'Authorization'), ...docCodeBlocks('docs/tools-and-handlers.md', 'API tour')];
    expect(blocks.some((block) => block.code.includes('const authorizer: Authorizer'))).toBe(true);
    expect(await compileCodeBlocks('authorization', blocks)).toEqual([]);
  }, 120_000);
});
