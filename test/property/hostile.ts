/**
 * Hostile wire text for the transport property test: what a peer can put in
 * one message (a line, a frame, a POST body), written as text so it can hold
 * what JSON.stringify would never write (repeated keys), and the oracle for
 * the reply it gets.
 *
 * - structures thousands deep, in the id, the params, a cancel's requestId or
 *   as the whole message (JSON.parse reads them; JSON.stringify overflows);
 * - huge strings and arrays (bounded well under the transports' size limits);
 * - objects shaped like cycles or prototype tricks (`$ref`, `__proto__`,
 *   `toJSON`, `toString`, `valueOf`, `constructor` keys), repeated keys;
 * - text that is not JSON at all;
 * - and the ordinary arbitrary messages of messages.ts.
 */
import fc from 'fast-check';
import { anyMessage, expectedReply, REQUEST_METHODS } from './messages.js';

function deep(open: string, close: string, depth: number, core = ''): string {
  return `${open.repeat(depth)}${core}${close.repeat(depth)}`;
}

const deepValue = fc.oneof(
  fc.integer({ min: 1000, max: 20_000 }).map((depth) => deep('[', ']', depth)),
  fc.integer({ min: 1000, max: 12_000 }).map((depth) => deep('{"a":', '}', depth, '1')),
  fc.integer({ min: 1000, max: 8_000 }).map((depth) => deep('[{"$ref":"#","v":', '}]', depth, 'null')),
);

const hugeValue = fc.oneof(
  fc.integer({ min: 50_000, max: 200_000 }).map((size) => JSON.stringify('x'.repeat(size))),
  fc.integer({ min: 10_000, max: 50_000 }).map((size) => `[${Array.from({ length: size }, () => '1').join(',')}]`),
  fc.integer({ min: 2_000, max: 10_000 }).map((size) => `{${Array.from({ length: size }, (_, i) => `"k${i}":${i}`).join(',')}}`),
);

const TRICK_KEYS = ['$ref', '__proto__', 'toJSON', 'toString', 'valueOf', 'constructor', 'hasOwnProperty', 'then'] as const;

/** An object whose keys try to be cycles, prototypes or hooks. */
const trickyValue = fc
  .array(fc.tuple(fc.constantFrom(...TRICK_KEYS), fc.constantFrom('{}', '"#"', '"#/params"', 'null', '1', '[]', '{"$ref":"#"}')), {
    minLength: 1,
    maxLength: 4,
  })
  .map((pairs) => `{${pairs.map(([key, value]) => `"${key}":${value}`).join(',')}}`);

const anyJsonText = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value));
/** A value for any position: mostly hostile, sometimes plain. */
const slot = fc.oneof(deepValue, hugeValue, trickyValue, anyJsonText);

const method = fc.constantFrom(...REQUEST_METHODS, 'notifications/cancelled', 'notifications/initialized');
const plainId = fc.oneof(fc.integer({ min: -1000, max: 1000 }).map(String), fc.constantFrom('"a"', 'null', '""'));

/** One message as wire text. */
const hostileWireText: fc.Arbitrary<string> = fc.oneof(
  // a hostile id on a request
  fc.tuple(slot, method).map(([id, m]) => `{"jsonrpc":"2.0","id":${id},"method":"${m}"}`),
  // hostile params on a request with a plain id
  fc.tuple(plainId, method, slot).map(([id, m, params]) => `{"jsonrpc":"2.0","id":${id},"method":"${m}","params":${params}}`),
  // hostile arguments for a tool that echoes them back, or a hostile prompt/uri/level argument
  fc.tuple(plainId, slot).map(([id, args]) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"x":${args}}}}`),
  fc
    .tuple(plainId, fc.constantFrom('logging/setLevel:level', 'resources/read:uri', 'prompts/get:name', 'completion/complete:ref'), slot)
    .map(([id, target, value]) => {
      const [m, key] = target.split(':');
      return `{"jsonrpc":"2.0","id":${id},"method":"${m}","params":{"${key}":${value},"argument":{"name":${value},"value":"v"}}}`;
    }),
  // a hostile requestId to cancel, and a hostile response to "our" request
  slot.map((requestId) => `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${requestId}}}`),
  fc.tuple(slot, slot).map(([id, result]) => `{"jsonrpc":"2.0","id":${id},"result":${result}}`),
  // the whole message hostile
  slot,
  // repeated keys: the last one wins in JSON.parse
  fc.tuple(plainId, slot, method).map(([id, other, m]) => `{"jsonrpc":"2.0","id":${id},"method":"${m}","id":${other},"method":"ping"}`),
  // not JSON at all
  fc.constantFrom('{"jsonrpc":', '[', 'nul', '{"a":1}}', '\u0000', '{"jsonrpc":"2.0","id":1,"method":"ping"', deep('[', '', 5000)),
  // ordinary arbitrary messages
  anyMessage.map((message) => JSON.stringify(message)),
);

/** Wire text that shows itself shortened in a counterexample (some are hundreds of kilobytes). */
export interface HostileText {
  readonly text: string;
}

function shortened(text: string): string {
  return text.length <= 160 ? text : `${text.slice(0, 120)}... (${text.length} chars) ...${text.slice(-20)}`;
}

export const hostileText: fc.Arbitrary<HostileText> = hostileWireText.map((text) => ({
  text,
  [fc.toStringMethod]: () => JSON.stringify(shortened(text)),
}));

export type WireExpectation =
  | { readonly kind: 'parse-error' }
  | { readonly kind: 'reply'; readonly id: unknown }
  | { readonly kind: 'none' };

/** What the contract says one message's text gets back: a -32700, one reply with this id, or nothing. */
export function expectationFor(text: string): WireExpectation {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'parse-error' };
  }
  const expected = expectedReply(message);
  return expected.replies ? { kind: 'reply', id: expected.id } : { kind: 'none' };
}
