/**
 * MRTR over stdio (serveStdio on in-process streams): an approval and a
 * handler's elicitation as input_required rounds on the wire, the client
 * never sent a request; a state from another stdio connection is -32602.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Message } from '../contract/helpers.js';
import { modernRpc } from '../era/modern-helpers.js';
import { stdioWire } from '../era/stdio-wire.js';
import { approve, ELICIT, mrtrServer, stateOf } from './modern-fixture.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

function stdio(server: ReturnType<typeof mrtrServer>['server'], connId = 'stdio') {
  const { send, next, lines } = stdioWire(server, closers, { connId });
  const call = async (message: unknown): Promise<Message> => {
    send(message);
    return next();
  };
  return { call, lines };
}

describe('MRTR over stdio', () => {
  test('approval: input_required, approve, one run; a handler elicitation resumes; no request is ever sent to the client', async () => {
    const { server, runs } = mrtrServer();
    const s = stdio(server);
    const asked = await s.call(modernRpc(1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    expect(asked).toMatchObject({ id: 1, result: { resultType: 'input_required', inputRequests: { 'rxmcp.approve': { method: 'elicitation/create' } } } });
    const ran = await s.call(modernRpc(2, 'tools/call', { name: 'wipe', arguments: { what: 'disk' }, requestState: stateOf(asked), inputResponses: approve }, { capabilities: ELICIT }));
    expect(ran).toMatchObject({ id: 2, result: { resultType: 'complete', content: [{ type: 'text', text: 'wiped disk' }] } });
    const again = await s.call(modernRpc(3, 'tools/call', { name: 'wipe', arguments: { what: 'disk' }, requestState: stateOf(asked), inputResponses: approve }, { capabilities: ELICIT }));
    expect(again.result.resultType).toBe('input_required');
    expect(runs).toEqual(['wipe disk']);

    const name = await s.call(modernRpc(4, 'tools/call', { name: 'ask_name' }, { capabilities: ELICIT }));
    const hello = await s.call(
      modernRpc(5, 'tools/call', { name: 'ask_name', requestState: stateOf(name), inputResponses: { 'rxmcp.1': { action: 'accept', content: { name: 'Ada' } } } }, { capabilities: ELICIT }),
    );
    expect(hello).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: 'Hello Ada' }] } });
    expect(s.lines.filter((m) => 'method' in m)).toEqual([]);
  });

  test('a state issued on one stdio connection is refused on another', async () => {
    const { server, runs } = mrtrServer();
    const first = stdio(server, 'stdio-a');
    const second = stdio(server, 'stdio-b');
    const asked = await first.call(modernRpc(1, 'tools/call', { name: 'wipe', arguments: { what: 'disk' } }, { capabilities: ELICIT }));
    const stolen = await second.call(modernRpc(2, 'tools/call', { name: 'wipe', arguments: { what: 'disk' }, requestState: stateOf(asked), inputResponses: approve }, { capabilities: ELICIT }));
    expect(stolen).toMatchObject({ id: 2, error: { code: -32602, data: { reason: 'invalid_request_state' } } });
    expect(runs).toEqual([]);
  });
});
