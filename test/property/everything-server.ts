/**
 * The server the property tests feed: a bit of everything (tools that
 * answer, crash, report a ToolError or need approval; a resource, a
 * template, a prompt with completers; a read gate that denies setLevel),
 * all synchronous, on a virtual clock nobody advances.
 */
import { VirtualTimeScheduler } from 'rxjs';
import { allowlist, createServer, Registry, ToolError, type McpServer } from '../../lib/index.js';

export function everythingServer(): McpServer {
  const registry = new Registry()
    .registerTool({ name: 'echo', handler: (args) => args })
    .registerTool({
      name: 'boom',
      handler: () => {
        throw new Error('boom');
      },
    })
    .registerTool({
      name: 'tool-error',
      handler: () => {
        throw new ToolError('told you');
      },
    })
    .registerTool({ name: 'guarded', handler: () => 'ran' })
    .registerResource({ uri: 'mem://a', name: 'a', read: () => 'a' })
    .registerResourceTemplate({
      uriTemplate: 'mem://t/{x}',
      name: 't',
      read: (_uri, vars) => `t:${vars.x}`,
      complete: { x: (value) => [value, `${value}1`] },
    })
    .registerPrompt({
      name: 'greet',
      arguments: [{ name: 'who', required: true }],
      get: (args) => `hello ${args.who}`,
      complete: { who: (value) => Array.from({ length: 150 }, (_, i) => `${value}${i}`) },
    });
  return createServer({
    registry,
    scheduler: new VirtualTimeScheduler(),
    authorizer: allowlist(['echo', 'boom', 'tool-error'], { ask: { guarded: 'Run guarded?' } }),
    authorizerSource: 'configured',
    readAuthorizer: (name) => (name === 'logging/setLevel' ? { deny: 'no' } : 'allow'),
  });
}

