/**
 * The official TypeScript SDK v2 client (@modelcontextprotocol/client,
 * pinned in devDependencies) against the BUILT demo across its whole matrix:
 * every negotiation mode ('legacy', 'auto', pinned 2026-07-28) over every
 * transport it ships (stdio, Streamable HTTP, and the legacy HTTP+SSE
 * transport, which only speaks the legacy era; it ships no WebSocket one).
 * Each cell lists tools, calls echo, and answers delete_note's approval
 * decline → accept → accept for one note: declined is denied, accepted runs
 * exactly once, and the next call is asked anew. What the client SENT shows
 * the path: on the modern era the answers ride a retried tools/call
 * (MRTR `inputResponses`), on the legacy era they are JSON-RPC responses to
 * the server's parked elicitation/create, and never the other way round.
 * test/era/sdk-v2-interop.test.ts and test/http-modern/sdk-v2-http.test.ts
 * cover the rest of the modern surface; this file is the era × transport grid.
 */
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertDemoBuilt, DEMO_MAIN, ROOT, serveDemo, stopDemos } from './demo-process.js';

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';

type Mode = 'legacy' | 'auto' | { pin: string };
type Wire = 'stdio' | 'streamable-http' | 'sse';
type Transport = StdioClientTransport | StreamableHTTPClientTransport | SSEClientTransport;

beforeAll(assertDemoBuilt);

const opened: Client[] = [];
afterEach(async () => {
  for (const client of opened.splice(0)) await client.close().catch(() => {});
  stopDemos();
});

async function transportFor(wire: Wire): Promise<Transport> {
  if (wire === 'stdio') return new StdioClientTransport({ command: process.execPath, args: [DEMO_MAIN, '--stdio'], cwd: ROOT, stderr: 'ignore' });
  const urls = await serveDemo();
  return wire === 'sse' ? new SSEClientTransport(new URL(urls.sse)) : new StreamableHTTPClientTransport(new URL(urls.mcp));
}

interface Connected {
  readonly client: Client;
  /** Every JSON-RPC message the client sent, in order. */
  readonly sent: Array<Record<string, any>>;
  /** The approval answers handed out, one per question. */
  readonly answers: Array<{ action: 'accept' | 'decline'; content?: { approve: boolean } }>;
  readonly questions: Array<Record<string, any>>;
}

async function connect(mode: Mode, wire: Wire): Promise<Connected> {
  const transport = await transportFor(wire);
  const sent: Array<Record<string, any>> = [];
  const send = transport.send.bind(transport) as (message: never, options?: never) => Promise<void>;
  transport.send = ((message: Record<string, any>, options?: never) => {
    sent.push(message);
    return send(message as never, options);
  }) as typeof transport.send;
  const client = new Client({ name: 'interop-ts-v2', version: '1.0.0' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode, probe: { timeoutMs: 10_000 } } });
  opened.push(client);
  const connected: Connected = { client, sent, answers: [], questions: [] };
  client.setRequestHandler('elicitation/create', (request) => {
    connected.questions.push(request.params as Record<string, any>);
    const answer = connected.answers.shift();
    if (!answer) throw new Error('asked more often than expected');
    return answer;
  });
  await client.connect(transport);
  return connected;
}

const deny = (detail: string) => JSON.stringify({ error: 'authorization_required', tool: 'delete_note', decision: 'ask', detail });
const textOf = (result: { content?: unknown }) => (result.content as Array<{ text: string }>).map((block) => block.text).join('');

async function approvalRoundTrip(connected: Connected): Promise<Array<{ isError: boolean; text: string; questions: number }>> {
  const outcomes = [];
  for (const answer of [{ action: 'decline' }, { action: 'accept', content: { approve: true } }, { action: 'accept', content: { approve: true } }] as const) {
    connected.answers.push(answer);
    const result = await connected.client.callTool({ name: 'delete_note', arguments: { id: '1' } });
    outcomes.push({ isError: result.isError === true, text: textOf(result), questions: connected.questions.length });
  }
  return outcomes;
}

const CELLS: ReadonlyArray<{ mode: Mode; wire: Wire; era: 'modern' | 'legacy' }> = [
  { mode: 'legacy', wire: 'stdio', era: 'legacy' },
  { mode: 'auto', wire: 'stdio', era: 'modern' },
  { mode: { pin: MODERN }, wire: 'stdio', era: 'modern' },
  { mode: 'legacy', wire: 'streamable-http', era: 'legacy' },
  { mode: 'auto', wire: 'streamable-http', era: 'modern' },
  { mode: { pin: MODERN }, wire: 'streamable-http', era: 'modern' },
  // The SSE transport predates server/discover: its probe finds a legacy server, and a pin has nothing to pin to.
  { mode: 'legacy', wire: 'sse', era: 'legacy' },
  { mode: 'auto', wire: 'sse', era: 'legacy' },
];

describe('the SDK v2 client: every mode over every transport it ships, with an approval round trip', () => {
  for (const { mode, wire, era } of CELLS) {
    const label = typeof mode === 'string' ? mode : `pinned ${mode.pin}`;
    test(`${wire}, ${label}: the ${era} era; approval through ${era === 'modern' ? 'MRTR' : 'legacy parking'}`, async () => {
      const connected = await connect(mode, wire);
      const { client, sent } = connected;
      expect(client.getProtocolEra()).toBe(era);
      expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? MODERN : LEGACY);
      expect(client.getServerVersion()?.name).toBe('rxmcp-demo');

      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['add', 'delete_note', 'echo', 'fail', 'notes_board', 'reject_input', 'slow_task']);
      expect(await client.callTool({ name: 'echo', arguments: { text: `${wire} ${label}` } })).toMatchObject({ content: [{ type: 'text', text: `${wire} ${label}` }] });

      expect(await approvalRoundTrip(connected)).toEqual([
        { isError: true, text: deny('declined'), questions: 1 },
        { isError: false, text: 'Deleted note 1', questions: 2 },
        // Asked anew (the approval was spent on one run), approved, ran again: the note is gone.
        { isError: true, text: 'No note with id 1', questions: 3 },
      ]);
      // 'mode' is optional on the legacy wire (form is the default), so only the schema is compared.
      expect(connected.questions[0]).toMatchObject({ requestedSchema: { required: ['approve'], properties: { approve: { type: 'boolean' } } } });

      const retried = sent.filter((message) => message.method === 'tools/call' && message.params?.inputResponses !== undefined);
      const replies = sent.filter((message) => message.method === undefined && 'result' in message);
      if (era === 'modern') {
        expect(retried).toHaveLength(3);
        expect(replies).toHaveLength(0);
        expect(sent.some((message) => message.method === 'initialize')).toBe(false);
      } else {
        expect(retried).toHaveLength(0);
        expect(replies.map((reply) => reply.result.action)).toEqual(['decline', 'accept', 'accept']);
      }
    });
  }

  test('a pin over the legacy SSE transport fails loudly instead of falling back', async () => {
    const failure = await connect({ pin: MODERN }, 'sse').then(() => undefined, (error: unknown) => error);
    expect(failure).toMatchObject({ code: 'ERA_NEGOTIATION_FAILED', message: expect.stringContaining(`did not offer pinned protocol version ${MODERN}`) });
  });
});
