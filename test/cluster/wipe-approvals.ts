/**
 * What the Redis approval tests share: a `wipe` tool an authorizer asks
 * about, which records every run (on which node) in `runs`, the modern
 * client's elicitation capability and approving answer, and how to read a
 * reply's requestState.
 */
import { Registry } from '../../lib/index.js';

export const ELICIT = { elicitation: {} };
export const APPROVE = { 'rxmcp.approve': { action: 'accept', content: { approve: true } } };

export interface WipeReply {
  result: { resultType?: string; requestState?: string; isError?: boolean; content?: Array<{ text: string }>; _meta?: Record<string, unknown> };
}

/** A registry with `wipe`, whose every run on `node` is recorded in `runs`; `settle` runs before it answers. */
export function wipeRegistry(node: string, runs: string[], settle?: () => Promise<unknown>): Registry {
  return new Registry().registerTool({
    name: 'wipe',
    handler: ({ what }) => {
      runs.push(`${node} wiped ${String(what)}`);
      const answer = `wiped ${String(what)}`;
      return settle === undefined ? answer : settle().then(() => answer);
    },
  });
}

/** The requestState of an `input_required` reply (anything else is a failure, shown whole). */
export function stateOf(reply: WipeReply): string {
  if (reply.result.resultType !== 'input_required' || typeof reply.result.requestState !== 'string') throw new Error(JSON.stringify(reply));
  return reply.result.requestState;
}
