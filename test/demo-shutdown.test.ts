/**
 * The built demo stops promptly on SIGTERM while an approval is unanswered
 * (issue 17): in both eras (2025-11-25: an elicitation/create with the call
 * parked; 2026-07-28: an `input_required` ticket in the ledger), on every
 * transport it serves. The demo exits by having nothing left running, so a
 * ticket's or a parked call's timer left behind would hold it for its whole
 * timeout (60 s). Needs the build (`npm test` builds first). Real time only
 * for the exit bound; every wait is bounded, and each demo is killed (by its
 * own handle) in a finally.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, test } from 'vitest';
import type { Message } from './contract/helpers.js';
import { legacyInitialize, modernRpc } from './era/modern-helpers.js';
import { startNetworkDemo, StdioDemo, within } from './hostile/demo-process.js';
import { modernPost } from './http-modern/helpers.js';
import { closeAll, inbox, openClient } from './ws/helpers.js';

/** Well under the 60 s a leftover approval timer would hold the process, with room for a loaded machine. */
const EXIT_BOUND_MS = 2_000;
const ELICIT = { elicitation: {} };
const DELETE = { name: 'delete_note', arguments: { id: '1' } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

type Demo = { readonly child: { readonly process: import('node:child_process').ChildProcess; readonly exited: Promise<number | null>; stop(): Promise<void> } };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await closeAll();
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

/** Starts a demo whose stop is registered for afterEach (SIGKILL, only if still alive). */
function started<T extends Demo>(demo: T): T {
  cleanups.push(() => demo.child.stop());
  return demo;
}

/** SIGTERM, then the exit code, which must come within the bound. */
async function terminated(demo: Demo): Promise<number | null> {
  demo.child.process.kill('SIGTERM');
  return within(demo.child.exited, EXIT_BOUND_MS, 'the demo exiting after SIGTERM');
}

/** Reads lines until one matches (bounded per line by `next`). */
async function until(next: () => Promise<Message>, match: (m: Message) => boolean): Promise<Message> {
  for (;;) {
    const message = await next();
    if (match(message)) return message;
  }
}

const isElicitation = (m: Message) => m.method === 'elicitation/create';
const inputRequired = (m: Message) => m.result?.resultType === 'input_required';

/** An official 1.x client that advertises elicitation and never answers it; resolves once it was asked. */
async function unansweredLegacyClient(transport: StreamableHTTPClientTransport | SSEClientTransport): Promise<void> {
  const client = new Client({ name: 'demo-shutdown', version: '1' }, { capabilities: ELICIT });
  let asked!: () => void;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  client.setRequestHandler(ElicitRequestSchema, () => {
    asked();
    return new Promise(() => {});
  });
  cleanups.push(() => client.close());
  await within(client.connect(transport), 5000, 'the client connecting');
  client.callTool(DELETE).catch(() => {});
  await within(wasAsked, 5000, 'the elicitation request');
}

describe('SIGTERM with an unanswered approval: the demo exits at once', () => {
  test('stdio, legacy: a parked call', async () => {
    const demo = started(new StdioDemo());
    demo.send(legacyInitialize('init', ELICIT));
    await demo.next();
    demo.send(INITIALIZED);
    demo.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: DELETE });
    await until(() => demo.next(), isElicitation);
    expect(await terminated(demo)).toBe(0);
  });

  test('stdio, modern: an input_required ticket', async () => {
    const demo = started(new StdioDemo());
    demo.send(modernRpc(1, 'tools/call', DELETE, { capabilities: ELICIT }));
    expect(inputRequired(await until(() => demo.next(), (m) => m.id === 1))).toBe(true);
    expect(await terminated(demo)).toBe(0);
  });

  test('Streamable HTTP /mcp, legacy: a parked call (official client)', async () => {
    const demo = started(await startNetworkDemo());
    await unansweredLegacyClient(new StreamableHTTPClientTransport(new URL(demo.urls.mcp)));
    expect(await terminated(demo)).toBe(0);
  });

  test('Streamable HTTP /mcp, modern: an input_required ticket held by the peer, never retried', async () => {
    const demo = started(await startNetworkDemo());
    const response = await within(modernPost(demo.urls.mcp, 1, 'tools/call', DELETE, { capabilities: ELICIT, accept: 'application/json' }), 5000, 'the reply');
    expect(inputRequired(await response.json())).toBe(true);
    expect(await terminated(demo)).toBe(0);
  });

  test('legacy HTTP+SSE /sse: a parked call (official client)', async () => {
    const demo = started(await startNetworkDemo());
    await unansweredLegacyClient(new SSEClientTransport(new URL(demo.urls.sse)));
    expect(await terminated(demo)).toBe(0);
  });

  test('WebSocket /ws, legacy: a parked call', async () => {
    const demo = started(await startNetworkDemo());
    const socket = await openClient(demo.urls.ws);
    const received = inbox(socket);
    socket.send(JSON.stringify(legacyInitialize('init', ELICIT)));
    await received.next();
    socket.send(JSON.stringify(INITIALIZED));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: DELETE }));
    await until(() => received.next(), isElicitation);
    expect(await terminated(demo)).toBe(0);
  });

  test('WebSocket /ws, modern: an input_required ticket', async () => {
    const demo = started(await startNetworkDemo());
    const socket = await openClient(demo.urls.ws);
    const received = inbox(socket);
    socket.send(JSON.stringify(modernRpc(1, 'tools/call', DELETE, { capabilities: ELICIT })));
    expect(inputRequired(await until(() => received.next(), (m) => m.id === 1))).toBe(true);
    expect(await terminated(demo)).toBe(0);
  });
});
