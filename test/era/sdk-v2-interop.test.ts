/**
 * Interop with the official TypeScript SDK v2 client
 * (@modelcontextprotocol/client, pinned in devDependencies) over stdio: it
 * spawns the BUILT demo (`npm test` builds first; run `npm run build` before
 * running this file alone) and speaks 2026-07-28 to it, pinned and by
 * negotiation ('auto' probes with server/discover on a sibling process,
 * then opens the session modern). The SDK validates every result against
 * the 2026-07-28 schema, resultType included.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = fileURLToPath(new URL('../../dist/examples/demo/main.js', import.meta.url));
const MODERN = '2026-07-28';

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm test does)`);
});

const opened: Client[] = [];
afterEach(async () => {
  for (const client of opened.splice(0)) await client.close().catch(() => {});
});

async function connect(mode: 'auto' | { pin: string }, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, '--stdio'], cwd: ROOT, stderr: 'ignore' });
  const client = new Client({ name: 'sdk-v2-interop', version: '1.0.0' }, { capabilities, versionNegotiation: { mode, probe: { timeoutMs: 10_000 } } });
  opened.push(client);
  await client.connect(transport);
  return client;
}

describe('the SDK v2 client speaking 2026-07-28 to the demo over stdio', () => {
  test('pinned: discover, every list, a tool call, a read, a prompt, a completion', async () => {
    const client = await connect({ pin: MODERN });
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()?.name).toBe('rxmcp-demo');
    expect(client.getDiscoverResult()?.supportedVersions).toEqual([MODERN]);

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('echo');
    expect(await client.callTool({ name: 'echo', arguments: { text: 'modern' } })).toMatchObject({ content: [{ type: 'text', text: 'modern' }] });
    expect((await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).content).toEqual([{ type: 'text', text: '5' }]);

    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['demo://notes', 'ui://notes/board']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['demo://notes/{id}']);
    const note = await client.readResource({ uri: 'demo://notes/1' });
    expect(note.contents[0]).toMatchObject({ uri: 'demo://notes/1', mimeType: 'text/plain' });

    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['summarize']);
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { topic: 'milk' } });
    expect(prompt.messages[0]?.role).toBe('user');
    const completion = await client.complete({ ref: { type: 'ref/resource', uri: 'demo://notes/{id}' }, argument: { name: 'id', value: '' } });
    expect(completion.completion.values.length).toBeGreaterThan(0);
  });

  test('pinned: an unknown resource is a -32602 protocol error; an approval round trip (MRTR) the client fulfils itself', async () => {
    const client = await connect({ pin: MODERN }, { elicitation: {} });
    const questions: unknown[] = [];
    let approve = false;
    client.setRequestHandler('elicitation/create', (request) => {
      questions.push(request.params);
      return { action: 'accept', content: { approve } };
    });
    const missing = await client.readResource({ uri: 'demo://notes/404' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(missing).toBeInstanceOf(ProtocolError);
    expect((missing as ProtocolError).code).toBe(-32602);
    const denied = await client.callTool({ name: 'delete_note', arguments: { id: '1' } });
    expect(denied.isError).toBe(true);
    expect(JSON.parse((denied.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ decision: 'ask', detail: 'not approved' });
    approve = true;
    const deleted = await client.callTool({ name: 'delete_note', arguments: { id: '1' } });
    expect(deleted).toMatchObject({ content: [{ type: 'text', text: 'Deleted note 1' }] });
    expect(deleted.isError).toBeFalsy();
    expect(questions).toHaveLength(2);
    expect(questions[0]).toMatchObject({ mode: 'form', requestedSchema: { required: ['approve'] } });
    // The approval was spent on that one run: the note is gone, and a second call is asked anew.
    const again = await client.callTool({ name: 'delete_note', arguments: { id: '1' } });
    expect(again.isError).toBe(true);
    expect(questions).toHaveLength(3);
  });

  test("'auto' negotiation finds the modern era", async () => {
    const client = await connect('auto');
    expect(client.getProtocolEra()).toBe('modern');
    expect((await client.callTool({ name: 'echo', arguments: { text: 'auto' } })).content).toEqual([{ type: 'text', text: 'auto' }]);
  });
});
