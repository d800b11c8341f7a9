/**
 * Issue 21.2: a tool crash tells more than `Error: callback_crashed`. The
 * contract fixes that text and test/era/legacy-unchanged pins the legacy
 * bytes, so the default stays byte for byte and its log line says how to see
 * more; `exposeErrors: 'hint'` tells the client where the error is and how to
 * send one, `'message'` sends the message itself.
 */
import { describe, expect, test } from 'vitest';
import { allowlist, ConfigError, createServer, Registry, type ServerOptions } from '../../lib/index.js';
import { ELICITING, Peer, answer, makeServer, rpc, settle, textOf } from '../contract/helpers.js';
import { recordingLogger } from '../helpers/recording-logger.js';

function crashingServer(options: ServerOptions = {}) {
  const registry = new Registry()
    .registerTool({ name: 'lookup', handler: ({ id }) => { throw new Error(`no such id ${String(id)}`); } })
    .registerTool({ name: 'wipe', annotations: { destructiveHint: true }, handler: () => { throw new TypeError('disk gone'); } });
  const log = recordingLogger();
  const server = makeServer({ registry, logger: log.logger, authorizer: allowlist(['lookup'], { ask: { wipe: 'Wipe?' } }), ...options });
  return { server, log };
}

async function crashText(options: ServerOptions = {}): Promise<string> {
  const { server } = crashingServer(options);
  return textOf(await server.handleMessage(rpc(1, 'tools/call', { name: 'lookup', arguments: { id: 'zz' } })));
}

describe('exposeErrors', () => {
  test('default: the contract\'s text exactly, and the log line says how the client could be told more', async () => {
    const { server, log } = crashingServer();
    const reply = await server.handleMessage(rpc(1, 'tools/call', { name: 'lookup', arguments: { id: 'zz' } }));
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Error: callback_crashed' }], isError: true } });
    expect(log.at('error')).toEqual([
      'MCP callback crashed: tools/call lookup (the client was sent "Error: callback_crashed" only: throw a ToolError to send it a message, or set exposeErrors)',
    ]);
  });

  test("'hint': the client is told the error is in the server's log, and how to send a message (ToolError, exposeErrors: 'message')", async () => {
    expect(await crashText({ exposeErrors: 'hint' })).toBe(
      "Error: callback_crashed (the tool threw; its error is in the server's log. A tool sends the client a message by throwing ToolError; createServer({ exposeErrors: 'message' }) sends every message)",
    );
  });

  test("'message': the thrown error's name and message, after the machine-readable reason; the log line has no hint", async () => {
    const { server, log } = crashingServer({ exposeErrors: 'message' });
    const reply = await server.handleMessage(rpc(1, 'tools/call', { name: 'lookup', arguments: { id: 'zz' } }));
    expect(textOf(reply)).toBe('Error: callback_crashed: Error: no such id zz');
    expect(log.at('error')).toEqual(['MCP callback crashed: tools/call lookup']);
  });

  test("'message' bounds a long message, and says what a non-Error throw was", async () => {
    const registry = new Registry()
      .registerTool({ name: 'long', handler: () => { throw new Error('x'.repeat(5000)); } })
      .registerTool({ name: 'odd', handler: () => { throw 42; } });
    const server = makeServer({ registry, exposeErrors: 'message', logger: recordingLogger().logger });
    const long = textOf(await server.handleMessage(rpc(1, 'tools/call', { name: 'long' })));
    expect(long).toBe(`Error: callback_crashed: Error: ${'x'.repeat(993)}...`);
    expect(textOf(await server.handleMessage(rpc(2, 'tools/call', { name: 'odd' })))).toBe('Error: callback_crashed: 42');
  });

  test('an approved call that crashes (the second worker) follows the option too', async () => {
    const { server } = crashingServer({ exposeErrors: 'message' });
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    peer.send(rpc(7, 'tools/call', { name: 'wipe' }));
    await settle();
    const [ask] = peer.elicitations();
    peer.send(answer(ask.id, { action: 'accept', content: { approve: true } }));
    const reply = await peer.waitFor((m) => m.id === 7);
    expect(textOf(reply)).toBe('Error: callback_crashed: TypeError: disk gone');
  });

  test('anything else refuses to start, naming the option', () => {
    expect(() => createServer({ exposeErrors: true as never })).toThrow(ConfigError);
    expect(() => createServer({ exposeErrors: 'stack' as never })).toThrow(/exposeErrors must be false, 'hint' or 'message'/);
  });

  test('a read that crashes keeps its fixed -32603 whatever the option', async () => {
    const registry = new Registry().registerResource({ uri: 'mem://x', name: 'x', read: () => { throw new Error('secret path /etc/x'); } });
    const server = makeServer({ registry, exposeErrors: 'message', logger: recordingLogger().logger });
    const reply = await server.handleMessage(rpc(1, 'resources/read', { uri: 'mem://x' }));
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'MCP callback failed', data: { error: 'callback_crashed', method: 'resources/read' } } });
  });
});
