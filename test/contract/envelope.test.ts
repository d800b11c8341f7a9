/**
 * Contract: the JSON-RPC envelope. Reply shapes, the validation order that
 * runs before any method is looked at, and what gets no reply at all.
 */
import { describe, expect, test } from 'vitest';
import { Peer, heldHandler, makeServer, note, rpc, settle } from './helpers.js';

const server = makeServer();
const send = (message: unknown) => server.handleMessage(message);

describe('replies', () => {
  test('a result reply is exactly {jsonrpc, id, result}', async () => {
    expect(await send(rpc(1, 'ping'))).toStrictEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  test('an error reply is exactly {jsonrpc, id, error:{code, message}}: no data key when there is none', async () => {
    const reply = (await send(rpc(2, 'nope'))) as any;
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Unknown method: nope' } });
    expect('data' in reply.error).toBe(false);
  });

  test.each([
    ['a string', 'abc'],
    ['an empty string', ''],
    ['zero', 0],
    ['a negative number', -7],
    ['a fraction', 1.5],
    ['null', null],
  ])('the id is echoed unchanged: %s', async (_what, id) => {
    const reply = (await send(rpc(id, 'ping'))) as any;
    expect(reply.id).toStrictEqual(id);
    const error = (await send(rpc(id, 'unknown/method'))) as any;
    expect(error.id).toStrictEqual(id);
  });

  test('over a connection too, the id comes back as sent', async () => {
    const peer = new Peer(server);
    const reply = await peer.call('session-x-3', 'ping');
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 'session-x-3', result: {} });
    peer.close();
  });
});

describe('0. an id that is not a string, a number or null: -32600 with id null', () => {
  const BAD_ID = { code: -32600, message: 'Invalid Request: id must be a string, a number or null' };

  test.each([
    ['an object', { a: [1, { b: 'c' }] }],
    ['an array', [1, 'two']],
    ['true', true],
    ['false', false],
    ['an empty object', {}],
  ])('%s is refused before the method is looked at, and never echoed', async (_what, id) => {
    let ran = 0;
    const s = makeServer();
    s.registry.registerTool({ name: 't', handler: () => { ran += 1; return 'x'; } });
    expect(await s.handleMessage(rpc(id, 'ping'))).toStrictEqual({ jsonrpc: '2.0', id: null, error: BAD_ID });
    expect(await s.handleMessage(rpc(id, 'tools/call', { name: 't' }))).toStrictEqual({ jsonrpc: '2.0', id: null, error: BAD_ID });
    expect(await s.handleMessage({ jsonrpc: '1.0', id, method: 'ping' })).toStrictEqual({ jsonrpc: '2.0', id: null, error: BAD_ID });
    expect(ran).toBe(0);
  });

  test('over a connection the same, and the connection keeps working', async () => {
    const peer = new Peer(server);
    peer.send(rpc([[['deep']]], 'ping'));
    await settle();
    expect(peer.received).toStrictEqual([{ jsonrpc: '2.0', id: null, error: BAD_ID }]);
    expect(await peer.call(2, 'ping')).toStrictEqual({ jsonrpc: '2.0', id: 2, result: {} });
    peer.close();
  });

  test('a response carrying such an id answers nothing and gets no reply', async () => {
    expect(await send({ jsonrpc: '2.0', id: { elicitation: 1 }, result: {} })).toBeNull();
    expect(await send({ jsonrpc: '2.0', id: [1], error: { code: 1, message: 'x' } })).toBeNull();
  });

  test('notifications/cancelled naming such a requestId is dropped: nothing is cancelled, nothing answered', async () => {
    const s = makeServer();
    const held = heldHandler();
    s.registry.registerTool({ name: 'slow', handler: held.handler });
    const peer = new Peer(s);
    peer.send(rpc(7, 'tools/call', { name: 'slow' }));
    await settle();
    for (const requestId of [[7], { id: 7 }, true, null]) {
      peer.send(note('notifications/cancelled', { requestId }));
    }
    await settle();
    expect(peer.received).toEqual([]);
    held.finish(0);
    await settle();
    expect(peer.responsesTo(7)).toHaveLength(1);
    peer.close();
  });
});

describe('1. not a JSON object: -32600 with id null', () => {
  test.each([
    ['a string', 'ping'],
    ['a number', 42],
    ['null', null],
    ['true', true],
  ])('%s', async (_what, message) => {
    const reply = (await send(message)) as any;
    expect(reply.jsonrpc).toBe('2.0');
    expect(reply.id).toBeNull();
    expect(reply.error.code).toBe(-32600);
    expect('result' in reply).toBe(false);
  });

  test('a JSON-RPC batch array is refused the same way, and none of its members runs', async () => {
    let ran = 0;
    const s = makeServer();
    s.registry.registerTool({ name: 't', handler: () => { ran += 1; return 'x'; } });
    const reply = (await s.handleMessage([rpc(1, 'ping'), rpc(2, 'tools/call', { name: 't' })])) as any;
    expect(reply.id).toBeNull();
    expect(reply.error.code).toBe(-32600);
    expect(ran).toBe(0);
  });

  test('an empty array is refused too', async () => {
    const reply = (await send([])) as any;
    expect(reply.error.code).toBe(-32600);
    expect(reply.id).toBeNull();
  });
});

describe('2. jsonrpc not "2.0"', () => {
  test.each([['1.0'], [2], [undefined], [null]])('a request with jsonrpc %s is -32600 with its id', async (jsonrpc) => {
    const reply = (await send({ jsonrpc, id: 9, method: 'ping' })) as any;
    expect(reply.id).toBe(9);
    expect(reply.error.code).toBe(-32600);
  });

  test('a notification with a bad jsonrpc is dropped (no reply, no effect)', async () => {
    const s = makeServer();
    const peer = new Peer(s);
    let ran = 0;
    s.registry.registerTool({ name: 't', handler: () => { ran += 1; return 'x'; } });
    expect(await s.handleMessage({ jsonrpc: '1.0', method: 'notifications/initialized' })).toBeNull();
    peer.send({ jsonrpc: '1.0', method: 'tools/call', params: { name: 't' } });
    await settle();
    expect(peer.received).toEqual([]);
    expect(ran).toBe(0);
    peer.close();
  });

  test('is checked before params: a bad jsonrpc with bad params is -32600, not -32602', async () => {
    const reply = (await send({ jsonrpc: '1.0', id: 1, method: 'ping', params: 5 })) as any;
    expect(reply.error.code).toBe(-32600);
  });
});

describe('3. method present but not a string', () => {
  test.each([[5], [null], [{}], [['ping']], [true]])('a request with method %j is -32600', async (method) => {
    const reply = (await send({ jsonrpc: '2.0', id: 'm', method })) as any;
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: 'm', error: { code: -32600 } });
  });

  test('such a notification is dropped', async () => {
    const s = makeServer();
    const peer = new Peer(s);
    expect(await s.handleMessage({ jsonrpc: '2.0', method: 5 })).toBeNull();
    peer.send({ jsonrpc: '2.0', method: 5 });
    peer.send({ jsonrpc: '2.0', method: null, params: 3 });
    await settle();
    expect(peer.received).toEqual([]);
    peer.close();
  });

  test('is checked before params: a non-string method with bad params is -32600, not -32602', async () => {
    const reply = (await send({ jsonrpc: '2.0', id: 1, method: 5, params: 'x' })) as any;
    expect(reply.error.code).toBe(-32600);
  });
});

describe('4. params', () => {
  test('params: null is treated as absent', async () => {
    expect(await send({ jsonrpc: '2.0', id: 1, method: 'ping', params: null })).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {},
    });
    const call = (await send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: null })) as any;
    expect(call.error).toStrictEqual({ code: -32602, message: 'tools/call requires params' });
  });

  test.each([[[]], [[1, 2]], ['str'], [3], [true]])('params %j is -32602', async (params) => {
    const reply = (await send({ jsonrpc: '2.0', id: 'p', method: 'ping', params })) as any;
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: 'p', error: { code: -32602 } });
  });

  test('is checked before the method is looked at: unknown method with bad params is -32602, not -32601', async () => {
    const reply = (await send({ jsonrpc: '2.0', id: 1, method: 'no/such', params: 7 })) as any;
    expect(reply.error.code).toBe(-32602);
  });

  test('a notification with bad params is dropped', async () => {
    expect(await send({ jsonrpc: '2.0', method: 'notifications/initialized', params: 7 })).toBeNull();
  });
});

describe('5. missing method', () => {
  test('an id but neither method nor result/error is -32600 "Missing method"', async () => {
    expect(await send({ jsonrpc: '2.0', id: 4 })).toStrictEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32600, message: 'Missing method' },
    });
    const withParams = (await send({ jsonrpc: '2.0', id: 5, params: {} })) as any;
    expect(withParams.error).toStrictEqual({ code: -32600, message: 'Missing method' });
  });

  test('{} gets no reply', async () => {
    expect(await send({})).toBeNull();
    expect(await send({ jsonrpc: '2.0' })).toBeNull();
    const peer = new Peer(server);
    peer.send({});
    peer.send({ jsonrpc: '2.0' });
    await settle();
    expect(peer.received).toEqual([]);
    peer.close();
  });
});

describe('6. responses', () => {
  test('a response answering nothing we asked is ignored silently', async () => {
    expect(await send({ jsonrpc: '2.0', id: 'nobody-asked', result: { action: 'accept' } })).toBeNull();
    expect(await send({ jsonrpc: '2.0', id: 3, error: { code: 1, message: 'x' } })).toBeNull();
    const peer = new Peer(server);
    peer.send({ jsonrpc: '2.0', id: 'rxmcp-elicit-AAAAAAAAAAAAAAAAAAAAAAAA', result: {} });
    peer.send({ jsonrpc: '2.0', id: 1, result: null });
    peer.send({ jsonrpc: '2.0', id: 2, result: {}, params: 5 });
    await settle();
    expect(peer.received).toEqual([]);
    peer.close();
  });
});

describe('method lookup', () => {
  test('an unknown method with an id is -32601 "Unknown method: <m>"', async () => {
    expect(await send(rpc('u', 'x'))).toStrictEqual({
      jsonrpc: '2.0',
      id: 'u',
      error: { code: -32601, message: 'Unknown method: x' },
    });
  });

  test('an unknown notification is ignored', async () => {
    expect(await send(note('notifications/whatever', { a: 1 }))).toBeNull();
    const peer = new Peer(server);
    peer.send(note('no/such/thing'));
    await settle();
    expect(peer.received).toEqual([]);
    // The connection still works afterwards.
    expect(await peer.call(1, 'ping')).toStrictEqual({ jsonrpc: '2.0', id: 1, result: {} });
    peer.close();
  });

  test('a known method sent as a notification gets no reply', async () => {
    expect(await send(note('ping'))).toBeNull();
    expect(await send(note('initialize', { protocolVersion: '2025-11-25', capabilities: {} }))).toBeNull();
  });

  test('request() answers an envelope error as its reply, and a notification with null', async () => {
    expect(await server.request('junk').reply).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await server.request(note('notifications/initialized')).reply).toBeNull();
  });
});
