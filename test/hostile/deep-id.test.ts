/**
 * Hostile input: a request whose `id` is a 10,000-deep array (it parses;
 * encoding it overflows the stack), and the same structure as the
 * `requestId` of notifications/cancelled. Over every transport of the real,
 * built demo in its own process: the reply is -32600 with id null, decided
 * at the envelope before anything is stored or echoed; a deep requestId is
 * dropped; the process lives on, no session is left behind, and a normal
 * client (on the same connection and on a new one) is still served.
 *
 * Before the fix: stdio exited 1, legacy SSE took the whole process (all
 * three network transports) down, WebSocket never answered, and Streamable
 * HTTP answered 500 and kept the session it had minted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { StdioDemo, startNetworkDemo, type NetworkDemo } from './demo-process.js';
import { BAD_ID_REPLY, deepCancel, deepIdRequest, initializeRequest, ping, pong } from './hostile-json.js';
import { LegacySseClient, RawWebSocket, post, sessionCount, streamableSession } from './wire-clients.js';

describe('stdio (the demo on stdin/stdout)', () => {
  let demo: StdioDemo;
  beforeAll(() => {
    demo = new StdioDemo();
  });
  afterAll(async () => {
    await demo.child.stop();
  });

  test('a deep id is -32600 with id null, before and after initialize; the process answers the next request', async () => {
    demo.sendLine(deepIdRequest('ping'));
    expect(await demo.next()).toStrictEqual(BAD_ID_REPLY);
    demo.sendLine(deepIdRequest('initialize'));
    expect(await demo.next()).toStrictEqual(BAD_ID_REPLY);
    demo.send(initializeRequest(1));
    expect(await demo.next()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } });
    demo.sendLine(deepIdRequest('tools/list'));
    expect(await demo.next()).toStrictEqual(BAD_ID_REPLY);
    demo.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'still here' } } });
    expect(await demo.next()).toStrictEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'still here' }] } });
    expect(demo.child.alive).toBe(true);
  });

  test('a deep requestId in notifications/cancelled is dropped: no reply, and the connection goes on', async () => {
    demo.sendLine(deepCancel());
    demo.send(ping(3));
    // The next line is the ping's reply: nothing was written for the cancel.
    expect(await demo.next()).toStrictEqual(pong(3));
    expect(demo.unread).toBe(0);
    expect(demo.child.alive).toBe(true);
  });
});

describe('the network demo: Streamable HTTP, legacy SSE and WebSocket in one process', () => {
  let demo: NetworkDemo;
  beforeAll(async () => {
    demo = await startNetworkDemo();
  });
  afterAll(async () => {
    await demo.child.stop();
  });

  test('Streamable HTTP: a deep id on initialize is a 400 with -32600 id null, and no session is minted', async () => {
    const before = await sessionCount(demo.urls.base);
    const response = await post(demo.urls.mcp, deepIdRequest('initialize'));
    expect(response.status).toBe(400);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(await response.json()).toStrictEqual(BAD_ID_REPLY);
    expect(await sessionCount(demo.urls.base)).toBe(before);
  });

  test('Streamable HTTP: on a live session a deep id is a 400 and a deep requestId a 202; the session and a new client go on', async () => {
    const session = await streamableSession(demo.urls.mcp);
    const headers = { 'mcp-session-id': session };

    const deepRequest = await post(demo.urls.mcp, deepIdRequest('tools/list'), headers);
    expect(deepRequest.status).toBe(400);
    expect(await deepRequest.json()).toStrictEqual(BAD_ID_REPLY);

    const deepCancelled = await post(demo.urls.mcp, deepCancel(), headers);
    expect(deepCancelled.status).toBe(202);
    await deepCancelled.body?.cancel();

    const again = await post(demo.urls.mcp, ping('after'), headers);
    expect(again.status).toBe(200);
    expect(await again.json()).toStrictEqual(pong('after'));

    const other = await streamableSession(demo.urls.mcp);
    const fresh = await post(demo.urls.mcp, ping('fresh'), { 'mcp-session-id': other });
    expect(await fresh.json()).toStrictEqual(pong('fresh'));
    expect(demo.child.alive).toBe(true);
  });

  test('legacy SSE: the reply on the stream is -32600 id null, a deep requestId is dropped, and every transport lives on', async () => {
    const sse = await LegacySseClient.open(demo.urls.sse);
    expect(await sse.send(deepIdRequest('ping'))).toBe(202);
    expect(await sse.next()).toStrictEqual(BAD_ID_REPLY);

    expect(await sse.send(initializeRequest(1))).toBe(202);
    expect(await sse.next()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    expect(await sse.send(deepIdRequest('tools/call'))).toBe(202);
    expect(await sse.next()).toStrictEqual(BAD_ID_REPLY);
    expect(await sse.send(deepCancel())).toBe(202);
    expect(await sse.send(ping(2))).toBe(202);
    expect(await sse.next()).toStrictEqual(pong(2));
    await sse.close();

    // The process, and with it the other transports, survived.
    expect(demo.child.alive).toBe(true);
    const second = await LegacySseClient.open(demo.urls.sse);
    expect(await second.send(ping('second'))).toBe(202);
    expect(await second.next()).toStrictEqual(pong('second'));
    await second.close();
    const session = await streamableSession(demo.urls.mcp);
    expect(await (await post(demo.urls.mcp, ping('http'), { 'mcp-session-id': session })).json()).toStrictEqual(pong('http'));
  });

  test('WebSocket: answered -32600 id null on the same socket; a deep requestId is dropped; a second client is served', async () => {
    const socket = await RawWebSocket.open(demo.urls.ws);
    socket.send(deepIdRequest('ping'));
    expect(await socket.next()).toStrictEqual(BAD_ID_REPLY);
    socket.send(initializeRequest(1));
    expect(await socket.next()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    socket.send(deepIdRequest('resources/list'));
    expect(await socket.next()).toStrictEqual(BAD_ID_REPLY);
    socket.send(deepCancel());
    socket.send(ping(2));
    expect(await socket.next()).toStrictEqual(pong(2));
    expect(socket.unread).toBe(0);

    const second = await RawWebSocket.open(demo.urls.ws);
    second.send(ping('second'));
    expect(await second.next()).toStrictEqual(pong('second'));
    socket.close();
    second.close();
    expect(demo.child.alive).toBe(true);
  });
});
