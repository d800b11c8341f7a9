/** A server for the MRTR integration tests: a guarded tool whose policy a test flips, and handlers that ask for input. */
import type { Decision } from '../../lib/authorizers.js';
import { Registry, type ServerOptions } from '../../lib/index.js';
import { makeServer, type Message } from '../contract/helpers.js';
import { modernRpc, type ModernOptions } from '../era/modern-helpers.js';

export const KEY = 'mrtr-integration-secret-at-least-32-bytes';
export const APPROVE_KEY = 'rxmcp.approve';
export const ELICIT = { elicitation: {} };

const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

export function mrtrServer(options: ServerOptions = {}) {
  const runs: string[] = [];
  const policy: { wipe: Decision } = { wipe: { ask: 'Wipe it?' } };
  const registry = new Registry()
    .registerTool({ name: 'wipe', handler: ({ what }) => { runs.push(`wipe ${String(what)}`); return `wiped ${String(what)}`; } })
    .registerTool({
      name: 'ask_name',
      handler: async (_args, ctx) => {
        runs.push('ask_name prefix');
        const answer = await ctx.elicit({ message: 'Name?', requestedSchema: NAME_FORM });
        runs.push('ask_name done');
        return answer.action === 'accept' ? `Hello ${String(answer.content?.name)}` : `no name (${answer.action})`;
      },
    })
    .registerTool({
      name: 'two_steps',
      handler: async ({ topic }, ctx) => {
        const first = await ctx.elicit({ message: `Step 1 about ${String(topic)}`, requestedSchema: NAME_FORM });
        const second = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: String(first.content?.name) } }], maxTokens: 5 });
        const roots = await ctx.listRoots();
        runs.push('two_steps done');
        return JSON.stringify({ first: first.content, second: (second.content as { text?: string }).text, roots: roots.roots.map((r) => r.uri) });
      },
    })
    .registerTool({
      name: 'guarded_ask',
      handler: async (_args, ctx) => {
        runs.push('guarded_ask ran');
        await ctx.elicit({ message: 'Name?', requestedSchema: NAME_FORM });
        return 'never';
      },
    })
    .registerTool({
      name: 'swallow',
      handler: async (_args, ctx) => {
        try {
          await ctx.elicit({ message: 'Name?', requestedSchema: NAME_FORM });
          return 'answered';
        } catch {
          return 'gave up';
        }
      },
    })
    .registerPrompt({
      name: 'greeting',
      get: async (_args, ctx) => {
        const answer = await ctx.elicit({ message: 'Who?', requestedSchema: NAME_FORM });
        return `Hello ${String(answer.content?.name)}`;
      },
    })
    .registerResource({
      uri: 'demo://roots',
      name: 'roots',
      mimeType: 'text/plain',
      read: async (_uri, ctx) => (await ctx.listRoots()).roots.map((r) => r.uri).join(','),
    });
  const server = makeServer({
    registry,
    authorizer: (name) => (name === 'wipe' ? policy.wipe : name === 'guarded_ask' ? { ask: 'Ask?' } : 'allow'),
    authorizerSource: 'configured',
    requestStateKeys: [KEY],
    approvalTtlMs: 1000,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    ...options,
  });
  return { server, runs, policy };
}

/** One modern request through handleMessage (a direct caller on `connId`). */
export async function modern(
  server: ReturnType<typeof mrtrServer>['server'],
  id: unknown,
  method: string,
  params: Record<string, unknown>,
  options: ModernOptions & { connId?: string } = {},
): Promise<Message> {
  return (await server.handleMessage(modernRpc(id, method, params, options), { connId: options.connId ?? 'direct' })) as Message;
}

export function stateOf(reply: Message): string {
  if (reply.result?.resultType !== 'input_required') throw new Error(`not input_required: ${JSON.stringify(reply)}`);
  return reply.result.requestState as string;
}

/** The same token with one character of its sealed body changed. */
export function tampered(state: string): string {
  const at = state.length - 5;
  return state.slice(0, at) + (state[at] === 'A' ? 'B' : 'A') + state.slice(at + 1);
}

export const approve = { [APPROVE_KEY]: { action: 'accept', content: { approve: true } } };
