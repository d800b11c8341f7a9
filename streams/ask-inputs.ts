/**
 * ctx.askInputs, the part both eras share: the batch is checked before
 * anything is asked (a plain object of `{ method, params }` under keys the
 * handler names, none starting with `rxmcp.`, the prefix of single calls'
 * replay keys), and the legacy way of answering it: every request sent to
 * the client at once through the channel's own elicit / sample / listRoots,
 * so each keeps its capability check, timeout and cancellation. The first
 * failure rejects the batch and cancels the requests still out (the client
 * is sent notifications/cancelled for them): nothing stays pending for a
 * handler that can no longer use the answers.
 */
import type { ElicitParams, InputRequest } from '../lib/context.js';
import { isPlainObject } from '../lib/protocol/jsonrpc.js';

const RESERVED_PREFIX = 'rxmcp.';

/** What a channel answers single input calls with. */
export interface SingleInputs {
  elicit(params: ElicitParams, signal?: AbortSignal): Promise<unknown>;
  sample(params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
  listRoots(signal?: AbortSignal): Promise<unknown>;
}

/** The batch's entries, in the handler's order; a TypeError naming the key for anything that is not an input request. */
export function checkInputRequests(requests: unknown): Array<[string, InputRequest]> {
  if (!isPlainObject(requests)) throw new TypeError('ctx.askInputs: requests must be an object of { method, params } keyed by input name');
  const entries: Array<[string, InputRequest]> = [];
  for (const [key, request] of Object.entries(requests)) {
    if (key === '' || key.startsWith(RESERVED_PREFIX)) throw new TypeError(`ctx.askInputs: the key "${key}" is reserved (empty, or starting with ${RESERVED_PREFIX})`);
    if (!isPlainObject(request)) throw new TypeError(`ctx.askInputs: ${key} must be { method, params }`);
    const { method, params } = request;
    if (method === 'roots/list') {
      if (params !== undefined && !(isPlainObject(params) && Object.keys(params).length === 0)) throw new TypeError(`ctx.askInputs: ${key}: roots/list takes no params`);
    } else if (method === 'elicitation/create' || method === 'sampling/createMessage') {
      if (!isPlainObject(params)) throw new TypeError(`ctx.askInputs: ${key}: ${method} needs params`);
    } else {
      throw new TypeError(`ctx.askInputs: ${key}: method must be elicitation/create, sampling/createMessage or roots/list`);
    }
    entries.push([key, request as InputRequest]);
  }
  return entries;
}

function askOne(channel: SingleInputs, request: InputRequest, signal: AbortSignal): Promise<unknown> {
  switch (request.method) {
    case 'elicitation/create':
      return channel.elicit(request.params, signal);
    case 'sampling/createMessage':
      return channel.sample(request.params, signal);
    case 'roots/list':
      return channel.listRoots(signal);
  }
}

/** Legacy: every request sent at once (`callSignal` is the call's own); the answers keyed as asked, or the first failure. */
export async function askConcurrently(channel: SingleInputs, requests: unknown, callSignal: AbortSignal): Promise<Record<string, unknown>> {
  const entries = checkInputRequests(requests);
  const batch = new AbortController();
  const signal = AbortSignal.any([callSignal, batch.signal]);
  try {
    const answers = await Promise.all(entries.map(([, request]) => askOne(channel, request, signal)));
    return Object.fromEntries(entries.map(([key], i) => [key, answers[i]]));
  } catch (error) {
    batch.abort(error);
    throw error;
  }
}
