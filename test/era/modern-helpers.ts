/** Modern (2026-07-28) requests for tests, and a fixture server that exercises every era difference. */
import { allowlist, Registry, ResourceNotFoundError, type ServerOptions } from '../../lib/index.js';
import { makeServer, type Message } from '../contract/helpers.js';

export const MODERN = '2026-07-28';
export const PV = 'io.modelcontextprotocol/protocolVersion';
export const CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const INFO = 'io.modelcontextprotocol/clientInfo';
export const LEVEL = 'io.modelcontextprotocol/logLevel';
export const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export interface ModernOptions {
  readonly capabilities?: Record<string, unknown>;
  readonly logLevel?: string;
  /** Extra `_meta` keys (or overrides: pass undefined to drop one). */
  readonly meta?: Record<string, unknown>;
}

export function modernMeta(options: ModernOptions = {}): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [PV]: MODERN,
    [CAPS]: options.capabilities ?? {},
    [INFO]: { name: 'modern-test', version: '1.0.0' },
  };
  if (options.logLevel !== undefined) meta[LEVEL] = options.logLevel;
  for (const [key, value] of Object.entries(options.meta ?? {})) {
    if (value === undefined) delete meta[key];
    else meta[key] = value;
  }
  return meta;
}

/** A modern request: `params._meta` carries the envelope. */
export function modernRpc(id: unknown, method: string, params: Record<string, unknown> = {}, options: ModernOptions = {}): Message {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...modernMeta(options), ...(params._meta as object | undefined) } } };
}

export function legacyInitialize(id: unknown = 'init', capabilities: Record<string, unknown> = {}): Message {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'legacy', version: '1' } } };
}

export const FIXTURE_INFO = { name: 'era-fixture', version: '2.0.0' };

/** Every era difference in one registry: logs, input requests, an approval, a read deny, a missing resource. */
export function eraServer(options: ServerOptions = {}) {
  const runs: string[] = [];
  const registry = new Registry()
    .registerTool({ name: 'echo', handler: ({ text }) => { runs.push('echo'); return String(text); } })
    .registerTool({
      name: 'chatty',
      handler: (_args, ctx) => {
        ctx.log('debug', 'quiet');
        ctx.log('warning', 'careful');
        ctx.log('error', { loud: true }, 'tests');
        ctx.progress(1, 2, 'half');
        return 'said';
      },
    })
    .registerTool({
      name: 'ask_user',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
        return JSON.stringify(answer);
      },
    })
    .registerTool({ name: 'ask_url', handler: async (_args, ctx) => JSON.stringify(await ctx.elicit({ mode: 'url', message: 'Go', url: 'https://example.com', elicitationId: 'e1' })) })
    .registerTool({ name: 'sample', handler: async (_args, ctx) => JSON.stringify(await ctx.sample({ messages: [], maxTokens: 5 })) })
    .registerTool({ name: 'roots', handler: async (_args, ctx) => JSON.stringify(await ctx.listRoots()) })
    .registerTool({
      name: 'adaptive',
      handler: async (_args, ctx) => {
        try {
          return JSON.stringify(await ctx.listRoots());
        } catch (error) {
          return `no roots (${(error as Error).name}; era ${ctx.era}; declared ${JSON.stringify(ctx.modern?.clientCapabilities)})`;
        }
      },
    })
    .registerTool({ name: 'whoami', handler: (_args, ctx) => JSON.stringify({ era: ctx.era, modern: ctx.modern ?? null }) })
    .registerTool({ name: 'wipe', annotations: { destructiveHint: true }, handler: () => { runs.push('wipe'); return 'wiped'; } })
    .registerTool({ name: 'hang', handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => { runs.push('hang aborted'); resolve('late'); })) })
    .registerTool({ name: 'with_meta', handler: () => ({ content: [{ type: 'text', text: 'm' }], _meta: { 'com.example/trace': 'abc' } }) })
    .registerResource({ uri: 'demo://a', name: 'a', mimeType: 'text/plain', read: () => 'A' })
    .registerResource({ uri: 'demo://secret', name: 'secret', read: () => 'S' })
    .registerResourceTemplate({
      uriTemplate: 'demo://notes/{id}',
      name: 'note',
      read: (_uri, { id = '' }) => {
        if (id !== '1') throw new ResourceNotFoundError(`no note ${id}`);
        return 'note one';
      },
      complete: {
        id: (value) => ['1', '12', '2'].filter((v) => v.startsWith(value)),
      },
    })
    .registerPrompt({ name: 'greet', arguments: [{ name: 'who', required: true }], get: ({ who }) => `Hello ${who}` })
    .registerPrompt({
      name: 'pick',
      arguments: [{ name: 'thing' }],
      get: () => 'picked',
      complete: { thing: async (_value, ctx) => { await ctx.elicit({ message: 'which?', requestedSchema: { type: 'object', properties: {} } }); return []; } },
    });
  const server = makeServer({
    registry,
    name: FIXTURE_INFO.name,
    serverVersion: FIXTURE_INFO.version,
    instructions: 'be nice',
    authorizer: allowlist(['echo', 'chatty', 'ask_user', 'ask_url', 'sample', 'roots', 'adaptive', 'whoami', 'hang', 'with_meta'], { ask: { wipe: 'Wipe it?' } }),
    authorizerSource: 'configured',
    readAuthorizer: (_method, args) => (args.uri === 'demo://secret' ? { deny: 'not for you' } : 'allow'),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    ...options,
  });
  return { server, runs };
}
