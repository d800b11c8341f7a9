/**
 * A client that advertised neither sampling nor elicitation gets the
 * fixture's sampling and elicitation tools as isError results naming what
 * is missing, never a crash and never a request it cannot answer.
 */
import { afterEach, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MemoryClientTransport } from '../../transports/index.js';
import { createEverythingServer } from '../../examples/everything/server.js';

let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
});

test.each([
  ['test_sampling', { prompt: 'hi' }, 'sampling failed: the client did not advertise sampling (or cannot receive requests), so it cannot be asked to sample'],
  ['test_elicitation', { message: 'who?' }, 'elicitation failed: the client did not advertise elicitation (or cannot receive requests), so it cannot be asked for input'],
  ['test_elicitation_sep1034_defaults', {}, 'elicitation failed: the client did not advertise elicitation (or cannot receive requests), so it cannot be asked for input'],
  ['test_elicitation_sep1330_enums', {}, 'elicitation failed: the client did not advertise elicitation (or cannot receive requests), so it cannot be asked for input'],
])('%s without the capability is an isError result', async (name, args, message) => {
  const server = createEverythingServer({ stepDelayMs: 0 });
  client = new Client({ name: 'bare', version: '1' }, { capabilities: {} });
  await client.connect(new MemoryClientTransport(server));
  expect(await client.callTool({ name, arguments: args })).toEqual({ content: [{ type: 'text', text: message }], isError: true });
  expect(server.stats().pendingClientRequests).toBe(0);
});
