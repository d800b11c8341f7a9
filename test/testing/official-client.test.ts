/**
 * The test clock with the official SDK client instead of the test client:
 * MemoryClientTransport delivers each message a macrotask later, and the
 * clock's settling waits those hops out, so an `async` handler and an
 * approval answered at 999 or 1000 virtual ms behave as with the test
 * client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';
import { createTestServer, expectDenied, textOf } from '../../testing/index.js';

function setup() {
  const registry = new Registry()
    .registerTool({ name: 'slow', handler: async (_args, ctx) => `woke at ${await ctx.sleep(700).then(() => ctx.scheduler.now())}` })
    .registerTool({ name: 'wipe', sensitive: true, handler: async () => 'wiped' });
  const t = createTestServer({ registry, authorizer: (name) => (name === 'wipe' ? { ask: 'Wipe?' } : 'allow'), elicitationTimeoutMs: 1000 });
  const answers: Array<(result: ElicitResult) => void> = [];
  const client = new Client({ name: 'sdk', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => new Promise<ElicitResult>((resolve) => answers.push(resolve)));
  return { ...t, client, answers };
}

test('an async handler on the clock, called by the official client', async () => {
  const { client, clock, server } = setup();
  await client.connect(new MemoryClientTransport(server));
  const call = client.callTool({ name: 'slow' });
  await clock.advance(700);
  expect(textOf((await call) as { content: unknown[] })).toBe('woke at 700');
  await client.close();
});

test.each([
  [999, 'wiped'],
  [1000, 'timed out'],
])('the official client approves after %i virtual ms: %s', async (wait, outcome) => {
  const { client, clock, server, answers } = setup();
  await client.connect(new MemoryClientTransport(server));
  const call = client.callTool({ name: 'wipe' });
  await clock.settle();
  expect(answers).toHaveLength(1);
  await clock.advance(wait);
  answers[0]!({ action: 'accept', content: { approve: true } });
  const result = (await call) as { content: unknown[]; isError?: boolean };
  if (outcome === 'wiped') expect(textOf(result)).toBe('wiped');
  else expectDenied(result, 'timed out');
  await client.close();
});
