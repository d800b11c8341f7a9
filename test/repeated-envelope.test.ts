/**
 * RepeatedEnvelopeParser (transports/repeated-envelope.ts), by example: a
 * modern client's repeated envelope is shared and deep-frozen from its
 * second line on; every line shaped to trick the shortcut still parses as
 * JSON.parse parses it (or throws as it throws), with the remembered object
 * nowhere but where the envelope really is; legacy `_meta`s are never
 * shared; a client whose `_meta` changes on every line is re-read only on
 * the 1st, 2nd, 4th, 8th... miss in a row. The property over random
 * sequences is test/property/repeated-envelope.property.test.ts.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { RepeatedEnvelopeParser } from '../transports/repeated-envelope.js';
import {
  ENVELOPE,
  ENVELOPE_TEXT,
  envelope,
  expectParsedLike,
  INFO,
  NON_CANONICAL,
  pathsOf,
  request,
  requestMetaFirst,
} from './property/envelope-lines.js';

type Parsed = { params: { _meta: Record<string, unknown>; arguments?: unknown } };

const E = ENVELOPE_TEXT;
const HEAD = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{';

/** A parser that has remembered ENVELOPE, and the object it shares. */
function primed(): { parser: RepeatedEnvelopeParser; remembered: object } {
  const parser = new RepeatedEnvelopeParser();
  parser.parse(request(0, {}));
  const remembered = (parser.parse(request(1, {})) as Parsed).params._meta;
  expect(remembered).toEqual(ENVELOPE);
  expect(Object.isFrozen(remembered)).toBe(true);
  return { parser, remembered };
}

/** Every object in `root` (iteratively). */
function objectsIn(root: object): object[] {
  const seen: object[] = [];
  const pending: unknown[] = [root];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next === 'object' && next !== null) {
      seen.push(next);
      pending.push(...Object.values(next));
    }
  }
  return seen;
}

describe('the shortcut', () => {
  test('a repeated envelope is one shared object from the second line on, and every line is JSON.parse of it', () => {
    const parser = new RepeatedEnvelopeParser();
    const lines = [
      request(1, { text: 'one' }),
      request(2, { text: 'two', n: [1, 2, { deep: null }] }),
      request('three', {}),
      request(4, { text: 'x'.repeat(300) }),
      requestMetaFirst(5, { text: 'meta first' }),
    ];
    const metas = lines.map((line) => (expectParsedLike(parser.parse, line) as Parsed).params._meta);
    for (const meta of metas.slice(2)) expect(meta).toBe(metas[1]);
    expect(metas[1]).toEqual(ENVELOPE);
  });

  test('the shared envelope is frozen at every depth; the rest of each message is the caller\'s own', () => {
    const parser = new RepeatedEnvelopeParser();
    parser.parse(request(1, { text: 'a' }));
    const first = parser.parse(request(2, { text: 'b' })) as Parsed & { id: number };
    const second = parser.parse(request(3, { text: 'c' })) as Parsed;
    const meta = first.params._meta;
    expect(objectsIn(meta)).toHaveLength(4);
    for (const object of objectsIn(meta)) expect(Object.isFrozen(object)).toBe(true);
    expect(() => {
      (meta[INFO] as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    expect(meta).toEqual(ENVELOPE);
    // Only the envelope is shared: params, arguments and the message are fresh and writable.
    expect(second.params).not.toBe(first.params);
    expect(Object.isFrozen(first.params) || Object.isFrozen(first.params.arguments) || Object.isFrozen(first)).toBe(false);
    first.id = 99;
    expect(first.id).toBe(99);
  });

  test('a changed envelope (other clientInfo) is parsed in full and correct, then remembered in its place', () => {
    const { parser, remembered } = primed();
    const other = JSON.stringify(envelope('client-b'));
    const changed = expectParsedLike(parser.parse, request(2, { text: 'b' }, other), remembered) as Parsed;
    expect(changed.params._meta[INFO]).toEqual({ name: 'client-b', version: '1.0.0' });
    const next = (expectParsedLike(parser.parse, request(3, {}, other)) as Parsed).params._meta;
    expect((expectParsedLike(parser.parse, request(4, {}, other)) as Parsed).params._meta).toBe(next);
    expect(next).not.toBe(remembered);
    expect(Object.isFrozen(next)).toBe(true);
    // And the first envelope, back again, is a change like any other.
    expect((expectParsedLike(parser.parse, request(5, {})) as Parsed).params._meta).not.toBe(remembered);
  });

  test('an envelope JSON.stringify does not write back as read (1e400, -0) shares only what its canonical text parses to', () => {
    for (const { raw, canonical } of NON_CANONICAL) {
      const parser = new RepeatedEnvelopeParser();
      // The canonical text appears in the line (in arguments), so it is what gets remembered.
      expectParsedLike(parser.parse, `${HEAD}"_meta":${raw},"arguments":{"_meta":${canonical}}}}`);
      expectParsedLike(parser.parse, request(2, {}, canonical));
      expectParsedLike(parser.parse, request(3, {}, canonical));
      expectParsedLike(parser.parse, request(4, {}, raw));
    }
  });

  test('legacy `_meta` (a progressToken) is never remembered: two equal ones are two objects', () => {
    const legacy = JSON.stringify({ progressToken: 1 });
    for (const parser of [new RepeatedEnvelopeParser(), primed().parser]) {
      const metas = [1, 2, 3].map((id) => (expectParsedLike(parser.parse, request(id, {}, legacy)) as Parsed).params._meta);
      expect(metas[1]).not.toBe(metas[0]);
      expect(metas[2]).not.toBe(metas[1]);
      expect(Object.isFrozen(metas[2])).toBe(false);
    }
  });
});

describe('lines shaped to trick the shortcut: JSON.parse\'s result or throw, and the shared object only at params._meta', () => {
  const cases: Array<[string, string]> = [
    ['the envelope in a string, escaped', request(7, { text: `"_meta":${E}` })],
    ['the envelope in a string, escaped, beside the real one', request(7, { text: `"_meta":${E}` }, E)],
    ['the envelope in a string, unescaped (not JSON)', `${HEAD}"name":"echo","arguments":{"text":"_meta":${E}"}}}`],
    ['a key ending in an escaped quote before the envelope', `${HEAD}"x\\"_meta":${E}}}`],
    ['the envelope in arguments._meta only', `${HEAD}"name":"echo","arguments":{"_meta":${E}}}}`],
    ['the envelope in arguments._meta and in params._meta', `${HEAD}"arguments":{"_meta":${E}},"_meta":${E}}}`],
    ['a second _meta in params after it: null (last wins)', `${HEAD}"_meta":${E},"_meta":null}}`],
    ['a second _meta in params after it: 0', `${HEAD}"_meta":${E},"_meta":0}}`],
    ['a second _meta in params after it: another object', `${HEAD}"_meta":${E},"_meta":{"other":1}}}`],
    ['a second _meta in params before it', `${HEAD}"_meta":null,"_meta":${E}}}`],
    ['"_met\\u0061": null after it (the same key to JSON.parse)', `${HEAD}"_meta":${E},"_met\\u0061":null}}`],
    ['"\\u005fmeta": 0 after it', `${HEAD}"_meta":${E},"\\u005fmeta":0}}`],
    ['"_met\\u0061" holding the envelope, alone', `${HEAD}"_met\\u0061":${E}}}`],
    ['"_met\\u0061": null in params, the envelope in arguments', `${HEAD}"_met\\u0061":null,"arguments":{"_meta":${E}}}}`],
    ['_meta at the top level, not in params', `{"jsonrpc":"2.0","id":7,"method":"tools/call","_meta":${E},"params":{"name":"echo"}}`],
    ['_meta at the top level and "_meta":null in params', `{"jsonrpc":"2.0","id":7,"method":"tools/call","_meta":${E},"params":{"_met\\u0061":null}}`],
    ['params an array', `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[{"_meta":${E}}]}`],
    ['params an array holding "_meta" and the envelope', `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":["_meta",${E}]}`],
    ['a batch of one', `[${request(7, {})}]`],
    ['a batch of two', `[${request(7, {})},${request(8, {})}]`],
    ['"_meta" : with spaces', `${HEAD}"_meta" : ${E}}}`],
    ['"_meta": with a space after', `${HEAD}"_meta": ${E}}}`],
    ['"_meta"\\t:', `${HEAD}"_meta"\t:${E}}}`],
    ['pretty-printed', JSON.stringify(JSON.parse(request(7, { text: 'x' })), null, 2)],
    ['the envelope pretty-printed inside a one-line message', `${HEAD}"_meta":${JSON.stringify(ENVELOPE, null, 1)}}}`],
    ['junk right after the envelope: e5 (0e5 is a number)', `${HEAD}"_meta":${E}e5}}`],
    ['junk right after the envelope: .0', `${HEAD}"_meta":${E}.0}}`],
    ['junk right after the envelope: E-1', `${HEAD}"_meta":${E}E-1}}`],
    ['junk right after the envelope: 0', `${HEAD}"_meta":${E}0}}`],
    ['junk right after the envelope: x', `${HEAD}"_meta":${E}x}}`],
    ['a trailing comma after the envelope', `${HEAD}"_meta":${E},}}`],
    ['a brace too many after the envelope', `${HEAD}"_meta":${E}}}}`],
    ['a brace too few', `${HEAD}"_meta":${E}}`],
    ['junk after the whole message', `${request(7, {})}x`],
    ['a second message on the line', `${request(7, {})}${request(8, {})}`],
    ['a truncated envelope', `${HEAD}"_meta":${E.slice(0, -1)}}}`],
    ['a truncated envelope, closed later', `${HEAD}"_meta":${E.slice(0, -1)},"x":1}}}`],
    ['a line cut inside the envelope', `${HEAD}"_meta":${E.slice(0, 40)}`],
    ['"_meta":0 elsewhere (arguments)', `${HEAD}"_meta":${E},"arguments":{"_meta":0}}}`],
    ['"_meta":0 elsewhere (top level, after params)', `${HEAD}"_meta":${E}},"_meta":0}`],
    ['"_meta":null elsewhere (top level, after params)', `${HEAD}"_meta":${E}},"_meta":null}`],
    ['a key x_meta holding the envelope', `${HEAD}"x_meta":${E}}}`],
    ['a key x_meta before the real one', `${HEAD}"x_meta":0,"_meta":${E}}}`],
    ['a key x_meta after the real one', `${HEAD}"_meta":${E},"x_meta":null}}`],
    ['a key "_meta " (with a space)', `${HEAD}"_meta ":${E}}}`],
    ['params duplicated: the envelope\'s params first', `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":${E}},"params":{"name":"x"}}`],
    ['params duplicated: the envelope\'s params last', `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"},"params":{"_meta":${E}}}`],
    ['a __proto__ params holding _meta', `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"__proto__":{"_meta":${E}}}}`],
  ];

  test.each(cases)('%s', (_name, line) => {
    const { parser, remembered } = primed();
    expectParsedLike(parser.parse, line, remembered);
    // And the parser is not thrown off by it: the next repeat is still correct.
    expectParsedLike(parser.parse, request(8, { text: 'after' }), remembered);
  });

  test('where the shared object must not appear, it does not (the checks above, made explicit for the worst cases)', () => {
    for (const line of [`${HEAD}"_meta":${E},"_met\\u0061":null}}`, `${HEAD}"_meta":${E},"_meta":null}}`, `${HEAD}"name":"echo","arguments":{"_meta":${E}}}}`]) {
      const { parser, remembered } = primed();
      expect(pathsOf(parser.parse(line), remembered)).toEqual([]);
    }
  });
});

describe('the learning backoff', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  test('a modern client whose _meta differs on every line gets JSON.parse of each, its envelope re-read on misses 1, 2, 4, 8 and 16 only', () => {
    const { parser, remembered } = primed();
    const lines = Array.from({ length: 20 }, (_, i) => request(i + 2, { text: i }, JSON.stringify(envelope('client-a', { trace: `t${i}` }))));
    const expected = lines.map((line) => JSON.parse(line) as unknown);
    // A re-read writes the envelope back with JSON.stringify to compare it with the line: count those.
    const stringify = vi.spyOn(JSON, 'stringify');
    const parsed = lines.map((line) => parser.parse(line));
    const rereads = stringify.mock.calls.length;
    vi.restoreAllMocks();
    expect(parsed).toEqual(expected);
    for (const value of parsed) expect(pathsOf(value, remembered)).toEqual([]);
    expect(rereads).toBe(5);
  });

  test('after the misses, a repeated envelope is shared again', () => {
    const { parser } = primed();
    for (let i = 0; i < 5; i += 1) expectParsedLike(parser.parse, request(i, {}, JSON.stringify({ progressToken: i })));
    const other = JSON.stringify(envelope('client-c'));
    const metas = [10, 11, 12, 13, 14].map((id) => (expectParsedLike(parser.parse, request(id, {}, other)) as Parsed).params._meta);
    // The 6th and 7th misses in a row are not re-read; the 8th is, and from then on the envelope is shared.
    expect(metas.slice(0, 3).map((meta) => Object.isFrozen(meta))).toEqual([false, false, false]);
    expect(metas[4]).toBe(metas[3]);
    expect(Object.isFrozen(metas[3])).toBe(true);
  });
});
