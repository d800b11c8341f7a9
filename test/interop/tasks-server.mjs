#!/usr/bin/env node
/**
 * The tasks server the ext-tasks interop test (ext-tasks-client.test.ts)
 * drives with the official client, as a child process over the BUILT dist/
 * (`npm test` builds first): the everything fixture's seven tasks tools
 * (examples/everything/task-tools.ts) and two of this test's own, on a
 * server with tasks on and a 25 ms poll interval, so a test waits tens of
 * milliseconds between polls, not a second.
 *
 *   node tasks-server.mjs stdio   serves stdin/stdout
 *   node tasks-server.mjs http    serves Streamable HTTP on 127.0.0.1 port 0,
 *                                 the first stdout line naming its URL
 *
 * `wait_for_cancel` sleeps until its ctx.signal aborts and records the
 * abort; `wipe` (a plain tool) is behind the authorizer's approval ('ask',
 * which a request that declared tasks gets as a task) and records each run;
 * `journal` answers what was recorded, so a test sees over the wire that a
 * tasks/cancel reached the handler and how often an approved tool ran.
 */
import { allowAll, createServer, Registry } from '../../dist/lib/index.js';
import { serveHttp, serveStdio } from '../../dist/transports/index.js';
import { registerTaskTools } from '../../dist/examples/everything/task-tools.js';

const wire = process.argv[2];
if (wire !== 'stdio' && wire !== 'http') {
  process.stderr.write('usage: tasks-server.mjs stdio|http\n');
  process.exit(2);
}

/** What each wait_for_cancel run saw, by its label; the disks wipe wiped. */
const journal = { aborts: [], wiped: [] };

const registry = new Registry();
registerTaskTools(registry);
registry
  .registerTool({
    name: 'wait_for_cancel',
    description: 'Waits up to 20 s for its ctx.signal to abort; records the abort.',
    taskSupport: 'optional',
    inputSchema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
    handler: async ({ label }, ctx) => {
      ctx.signal.addEventListener('abort', () => journal.aborts.push({ label, aborted: ctx.signal.aborted, reason: String(ctx.signal.reason?.message ?? ctx.signal.reason) }), { once: true });
      await ctx.sleep(20_000);
      return `${label} was never cancelled`;
    },
  })
  .registerTool({
    name: 'wipe',
    description: 'Wipes a disk (pretend), once approved.',
    inputSchema: { type: 'object', properties: { disk: { type: 'string' } }, required: ['disk'] },
    handler: ({ disk }) => {
      journal.wiped.push(disk);
      return `wiped ${disk}`;
    },
  })
  .registerTool({
    name: 'journal',
    description: 'What wait_for_cancel and wipe recorded, as JSON.',
    inputSchema: { type: 'object', properties: {} },
    handler: () => JSON.stringify(journal),
  });

const server = createServer({
  name: 'rxmcp-tasks-interop',
  registry,
  tasks: { pollIntervalMs: 25 },
  authorizer: (name, args) => (name === 'wipe' ? { ask: `Wipe disk ${String(args?.disk)}?` } : 'allow'),
  authorizerSource: 'configured',
  readAuthorizer: allowAll(),
});

if (wire === 'stdio') {
  // Input ended (the client closed): every task run stopped, and the process exits.
  await serveStdio(server).closed;
  server.close();
} else {
  const http = await serveHttp(server, { port: 0, host: '127.0.0.1' });
  process.stdout.write(`${http.url}\n`);
  const stop = async () => {
    await http.close();
    server.close();
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}
