/**
 * Contract gap: deny messages a user can read. Every way an ASK on
 * tools/call ends other than approval is the same machine-readable deny
 * (`{"error":"authorization_required","tool","decision":"ask","detail"}`),
 * and its `detail` says what happened: the client could not be asked (and
 * why; the question then travels as `prompt` so it is not lost), the user
 * did not approve, declined, cancelled, the client failed, or time ran out.
 * Nothing reads like consent, and no two outcomes read the same.
 */
import { describe, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { ELICITING, Peer, answer, initialize, makeServer, rpc, settle } from '../contract/helpers.js';

const QUESTION = 'Delete every note? This cannot be undone.';

function askServer() {
  const runs: string[] = [];
  const registry = new Registry().registerTool({ name: 'wipe', handler: () => { runs.push('wipe'); return 'wiped'; } });
  const server = makeServer({ registry, authorizer: () => ({ ask: QUESTION }) });
  return { server, runs };
}

/** The deny's JSON, checked to be the machine-readable shape and nothing else. */
function denyOf(reply: any): Record<string, string> {
  expect(reply.result.isError).toBe(true);
  expect(reply.result.content).toHaveLength(1);
  const body = JSON.parse(reply.result.content[0].text) as Record<string, string>;
  expect(body).toMatchObject({ error: 'authorization_required', tool: 'wipe', decision: 'ask' });
  return body;
}

/** Parks a call on an eliciting peer, answers its elicitation with `response`, returns the deny. */
async function denyAfter(response: (elicitationId: string) => unknown): Promise<Record<string, string>> {
  const { server, runs } = askServer();
  const peer = new Peer(server);
  await peer.initialize(ELICITING);
  peer.send(rpc('call', 'tools/call', { name: 'wipe' }));
  await settle();
  const [request] = peer.elicitations();
  expect(request.params.message).toBe(QUESTION);
  peer.send(response(request.id));
  await settle();
  const deny = denyOf(peer.responsesTo('call')[0]);
  expect(runs).toEqual([]);
  peer.close();
  return deny;
}

describe('the client cannot be asked', () => {
  test('no elicitation capability: the detail says so, and the question is kept as prompt', async () => {
    const { server, runs } = askServer();
    const peer = new Peer(server);
    await peer.initialize({ sampling: {} });
    const deny = denyOf(await peer.call(1, 'tools/call', { name: 'wipe' }));
    expect(deny).toStrictEqual({
      error: 'authorization_required',
      tool: 'wipe',
      decision: 'ask',
      detail: 'client cannot be asked (no elicitation capability)',
      prompt: QUESTION,
    });
    expect(Object.keys(deny)).toEqual(['error', 'tool', 'decision', 'detail', 'prompt']);
    expect(runs).toEqual([]);
    peer.close();
  });

  test('nobody connected to ask: the detail says so', async () => {
    const { server } = askServer();
    await server.handleMessage(initialize('i', ELICITING), { connId: 'direct' });
    const deny = denyOf(await server.handleMessage(rpc(1, 'tools/call', { name: 'wipe' }), { connId: 'direct' }));
    expect(deny.detail).toBe('client cannot be asked (no live connection)');
    expect(deny.prompt).toBe(QUESTION);
  });
});

describe('the question was asked', () => {
  const OUTCOMES: Array<[string, string, (id: string) => unknown]> = [
    ['accept without approve', 'not approved', (id) => answer(id, { action: 'accept', content: { approve: false } })],
    ['accept with no content', 'not approved', (id) => answer(id, { action: 'accept' })],
    ['decline', 'declined', (id) => answer(id, { action: 'decline' })],
    ['cancel', 'cancelled', (id) => answer(id, { action: 'cancel' })],
    ['no action', 'not approved (the answer named no action)', (id) => answer(id, {})],
    ['an error response', 'elicitation failed (the client answered with an error)', (id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'no UI' } })],
  ];

  test.each(OUTCOMES)('%s: the detail is "%s"', async (_what, detail, response) => {
    const deny = await denyAfter(response);
    expect(deny.detail).toBe(detail);
    expect(deny.detail).not.toMatch(/accept/); // nothing reads like consent
    expect('prompt' in deny).toBe(false);
  });

  test('no answer in time: "timed out"', async () => {
    const { server } = askServer();
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    peer.send(rpc('call', 'tools/call', { name: 'wipe' }));
    await settle();
    expect(peer.elicitations()).toHaveLength(1);
    server.virtual.flush(); // past elicitationTimeoutMs on the virtual clock
    await settle();
    expect(denyOf(peer.responsesTo('call')[0]).detail).toBe('timed out');
    peer.close();
  });
});
