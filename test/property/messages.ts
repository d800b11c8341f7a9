/**
 * Arbitrary inbound messages for the property tests, and the reply oracle:
 * the envelope rules of the contract (spec/server-contract.md, "Envelope")
 * stated on their own, so the test does not borrow the code it checks.
 *
 * - not a JSON object (array, string, number, null): one reply, id null;
 * - an object with an id that is not response-shaped (id + result/error and
 *   no method): one reply echoing that id, whatever else is wrong with it,
 *   or with id null when the id is not a string, a number or null;
 * - anything else (notifications, responses, `{}`): no reply.
 */
import fc from 'fast-check';
import { LOG_LEVELS } from '../../lib/log-levels.js';
import { LEGACY_METHODS } from '../../streams/methods/tables.js';

export const REQUEST_METHODS = [...LEGACY_METHODS.keys()];
export const NOTIFICATION_METHODS = [
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
];

export type ReplyExpectation = { readonly replies: false } | { readonly replies: true; readonly id: unknown };

export function expectedReply(message: unknown): ReplyExpectation {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return { replies: true, id: null };
  const m = message as Record<string, unknown>;
  const hasId = 'id' in m && m.id !== undefined;
  const hasMethod = 'method' in m && m.method !== undefined;
  const responseShaped = !hasMethod && ('result' in m || 'error' in m);
  if (!hasId || responseShaped) return { replies: false };
  const id = m.id;
  const validId = typeof id === 'string' || typeof id === 'number' || id === null;
  return { replies: true, id: validId ? id : null };
}

const json = fc.jsonValue({ maxDepth: 3 });
const objectOfJson = fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 4 });
/** Names a real tool or prompt, a missing one, or one that would trip a naive lookup on Object.prototype. */
const name = fc.constantFrom('echo', 'boom', 'tool-error', 'guarded', 'greet', 'missing', 'constructor', '__proto__', 'toString');
const uri = fc.constantFrom('mem://a', 'mem://t/1', 'mem://t/', 'mem://none', 'constructor', '');

const toolCallParams = fc.record(
  { name, arguments: fc.oneof({ weight: 4, arbitrary: objectOfJson }, { weight: 1, arbitrary: json }) },
  { requiredKeys: ['name'] },
);
const uriParams = fc.record({ uri: fc.oneof({ weight: 5, arbitrary: uri }, { weight: 1, arbitrary: json }) }, { requiredKeys: ['uri'] });
const promptParams = fc.record(
  {
    name: fc.oneof({ weight: 3, arbitrary: fc.constant('greet') }, { weight: 1, arbitrary: name }),
    arguments: fc.oneof({ weight: 4, arbitrary: fc.dictionary(fc.constantFrom('who', 'x', 'constructor'), fc.string()) }, { weight: 1, arbitrary: json }),
  },
  { requiredKeys: ['name'] },
);
const completionParams = fc.record(
  {
    ref: fc.oneof(
      fc.record(
        { type: fc.constantFrom('ref/prompt', 'ref/resource', 'ref/other'), name: fc.constantFrom('greet', 'missing'), uri: fc.constantFrom('mem://t/{x}', 'mem://none') },
        { requiredKeys: ['type', 'name', 'uri'] },
      ),
      json,
    ),
    argument: fc.oneof(
      { weight: 4, arbitrary: fc.record({ name: fc.constantFrom('who', 'x', 'constructor', 'toString'), value: fc.string() }) },
      { weight: 1, arbitrary: json },
    ),
    context: fc.oneof(fc.record({ arguments: objectOfJson }), json),
  },
  { requiredKeys: ['ref', 'argument'] },
);
const levelParams = fc.record({ level: fc.oneof(fc.constantFrom(...LOG_LEVELS), json) });
const cancelParams = fc.record({ requestId: json, reason: fc.string() }, { requiredKeys: [] });
const cursorParams = fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.record({ cursor: fc.oneof(fc.string(), json) }) });
const initializeParams = fc.record({
  protocolVersion: fc.oneof(fc.constantFrom('2025-11-25', '2024-11-05', '1999-01-01'), json),
  capabilities: fc.oneof(objectOfJson, json),
});
const metaParams = fc.record({ _meta: fc.oneof(fc.record({ progressToken: fc.oneof(fc.string(), fc.integer()) }), json) });

/** Params that fit each method, so a request gets past the method's own checks often enough. */
const PARAMS_FOR: Record<string, fc.Arbitrary<unknown>> = {
  initialize: initializeParams,
  'tools/call': toolCallParams,
  'tools/list': cursorParams,
  'resources/list': cursorParams,
  'resources/templates/list': cursorParams,
  'prompts/list': cursorParams,
  'resources/read': uriParams,
  'resources/subscribe': uriParams,
  'resources/unsubscribe': uriParams,
  'prompts/get': promptParams,
  'completion/complete': completionParams,
  'logging/setLevel': levelParams,
  'notifications/cancelled': cancelParams,
};

const paramsShapes = fc.oneof(
  toolCallParams,
  uriParams,
  promptParams,
  completionParams,
  levelParams,
  cancelParams,
  cursorParams,
  initializeParams,
  metaParams,
  json,
);

const id = fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant(null), json);
const method = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...REQUEST_METHODS, ...NOTIFICATION_METHODS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 1, arbitrary: json },
);

/** Objects shaped like JSON-RPC with arbitrary fields: any key may be missing or wrong. */
export const rpcShaped = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: json }),
    id,
    method,
    params: paramsShapes,
    result: json,
    error: json,
  },
  { requiredKeys: [] },
);

/** Well-formed requests to the real methods, mostly with params that fit the method. */
export const wellFormedRequest = fc.constantFrom(...REQUEST_METHODS).chain((m) =>
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id,
    method: fc.constant(m),
    params: fc.oneof({ weight: 4, arbitrary: PARAMS_FOR[m] ?? metaParams }, { weight: 1, arbitrary: paramsShapes }),
  }),
);

export const anyMessage = fc.oneof(
  { weight: 1, arbitrary: fc.jsonValue() },
  { weight: 2, arbitrary: rpcShaped },
  { weight: 2, arbitrary: wellFormedRequest },
);
