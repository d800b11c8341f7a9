/**
 * MRTR approvals across nodes: a ticket issued on node A (an
 * `input_required` answer carrying a sealed requestState) is redeemed on node
 * B, and a concurrent redeem of the same ticket on node C is refused (asked
 * again), so the tool runs exactly once cluster-wide (the run log in Redis
 * says where). Needs the shared key ring (every node opens every node's
 * requestState) and the Redis approval ledger (a ticket is taken once).
 * Also the SDK v2 client through the proxy: its approval and its greet
 * elicitation each take two requests that land on different nodes, and a
 * survey's three questions are each asked once.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { clusterPerFile } from '../helpers/cluster-harness.js';
import { closeClients, modernClient, rawCall, textOf, type ElicitAnswer, type RawReply } from './clients.js';

const cluster = clusterPerFile({ nodes: 3 });
afterEach(closeClients);

const ELICIT = { elicitation: {} };
const APPROVE = { 'rxmcp.approve': { action: 'accept', content: { approve: true } } };

function call(url: string, id: number, params: Record<string, unknown>): Promise<RawReply> {
  return rawCall(url, id, params, { capabilities: ELICIT });
}

async function addNote(id: string): Promise<void> {
  const reply = await call(cluster.node('a').url, 1, { name: 'add_note', arguments: { id, text: `note ${id}` } });
  expect(textOf(reply.result)).toBe(`Added note ${id} on a`);
}

describe('an approval ticket across nodes', () => {
  test('issued on A, redeemed on B: the tool runs once; the same ticket redeemed at once on C is asked again', async () => {
    await addNote('t1');
    const asked = await call(cluster.node('a').url, 2, { name: 'delete_note', arguments: { id: 't1' } });
    expect(asked.result).toMatchObject({ resultType: 'input_required', inputRequests: { 'rxmcp.approve': { method: 'elicitation/create' } } });
    const requestState = asked.result!.requestState!;
    expect(typeof requestState).toBe('string');
    expect(await cluster.ledger.runs('delete.t1')).toEqual([]);

    const retry = { name: 'delete_note', arguments: { id: 't1' }, requestState, inputResponses: APPROVE };
    const [onB, onC] = await Promise.all([call(cluster.node('b').url, 3, retry), call(cluster.node('c').url, 4, retry)]);
    const outcomes = [onB, onC].map((reply) => reply.result?.resultType ?? `error ${reply.error?.code}`);
    // Exactly one of the two ran it; the other was asked again with a fresh ticket, never an error, never a second run.
    expect(outcomes.sort()).toEqual(['complete', 'input_required']);
    const ran = [onB, onC].find((reply) => reply.result?.resultType === 'complete')!;
    expect(textOf(ran.result)).toMatch(/^Deleted note t1 on [bc]$/);
    const again = [onB, onC].find((reply) => reply.result?.resultType === 'input_required')!;
    expect(again.result!.requestState).not.toBe(requestState);
    expect(await cluster.ledger.runs('delete.t1')).toHaveLength(1);
    expect(await cluster.ledger.note('t1')).toBeUndefined();

    // The spent ticket stays spent on every node: presenting it again anywhere asks again.
    for (const node of ['a', 'b', 'c']) {
      const replay = await call(cluster.node(node).url, 5, retry);
      expect(replay.result?.resultType).toBe('input_required');
    }
    expect(await cluster.ledger.runs('delete.t1')).toHaveLength(1);
  });

  test('the SDK v2 client through the proxy: an approval and an elicitation each span two nodes, the tool runs once', async () => {
    await addNote('t2');
    const answers: string[] = [];
    const client = await modernClient(cluster.url, (): ElicitAnswer => {
      answers.push('asked');
      const content: Record<string, string | boolean> = answers.length === 1 ? { approve: true } : { name: 'Ada' };
      return { action: 'accept', content };
    });
    const deleted = await client.callTool({ name: 'delete_note', arguments: { id: 't2' } });
    expect(textOf(deleted)).toMatch(/^Deleted note t2 on [abc]$/);
    expect(await cluster.ledger.runs('delete.t2')).toHaveLength(1);
    const greeted = await client.callTool({ name: 'greet', arguments: {} });
    expect(textOf(greeted)).toMatch(/^Hello, Ada, from [abc]$/);
    expect(answers).toEqual(['asked', 'asked']);
  });

  test('the SDK v2 client through the proxy: a survey asks each of its questions once and returns every answer', async () => {
    const asked: string[] = [];
    const client = await modernClient(cluster.url, (): ElicitAnswer => {
      asked.push('asked');
      return { action: 'accept', content: { answer: `a${asked.length}` } };
    });
    const surveyed = await client.callTool({ name: 'survey', arguments: { questions: 3 } });
    expect(textOf(surveyed)).toMatch(/^Answers a1, a2, a3 on [abc]$/);
    expect(asked).toHaveLength(3);
    const refused = await client.callTool({ name: 'survey', arguments: { questions: 6 } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('Invalid arguments for tool survey: arguments/questions must be <= 5');
  });
});
