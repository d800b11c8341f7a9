/**
 * Lines for the RepeatedEnvelopeParser tests (transports/repeated-envelope.ts):
 * modern requests repeating a few envelopes, legacy ones, and text built to
 * trick the shortcut (a second `_meta` key, spelled plainly or escaped, in
 * params, arguments or at the top; the envelope in a string; text after the
 * envelope that only a number would read on; envelopes JSON.stringify does
 * not write back as read), plus the oracle: whatever the parser returns or
 * throws is what JSON.parse returns or throws for the same text.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { hostileText } from './hostile.js';

export const PV = 'io.modelcontextprotocol/protocolVersion';
export const CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const INFO = 'io.modelcontextprotocol/clientInfo';

export function envelope(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { [PV]: '2026-07-28', [CAPS]: { elicitation: {} }, [INFO]: { name, version: '1.0.0' }, ...extra };
}

/** The envelope most tests repeat, as a client writes it (JSON.stringify). */
export const ENVELOPE = envelope('client-a');
export const ENVELOPE_TEXT = JSON.stringify(ENVELOPE);

/** A few envelopes a property run switches between, and a legacy `_meta`. */
export const ENVELOPE_TEXTS = [
  ENVELOPE_TEXT,
  JSON.stringify(envelope('client-b')),
  JSON.stringify(envelope('client-a', { 'io.modelcontextprotocol/logLevel': 'error', _meta: { nested: [1, { _meta: null }] } })),
  JSON.stringify({ progressToken: 7 }),
] as const;

/**
 * Envelopes written as JSON.stringify would not write them back (1e400 reads
 * as Infinity and is written null, -0 is written 0), beside their canonical text.
 */
export const NON_CANONICAL = [
  `{"${PV}":"2026-07-28","n":1e400}`,
  `{"${PV}":"2026-07-28","z":-0,"deep":[{"z":-0}]}`,
].map((raw) => ({ raw, canonical: JSON.stringify(JSON.parse(raw)) }));

/** A tools/call line: `params` holds name, arguments and `_meta` (written last, as JSON.stringify of modernRpc does). */
export function request(id: number | string, args: unknown, metaText: string = ENVELOPE_TEXT): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"echo","arguments":${JSON.stringify(args)},"_meta":${metaText}}}`;
}

/** The same with `_meta` first in params. */
export function requestMetaFirst(id: number | string, args: unknown, metaText: string = ENVELOPE_TEXT): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"_meta":${metaText},"name":"echo","arguments":${JSON.stringify(args)}}}`;
}

export type Outcome = { readonly value: unknown } | { readonly threw: string };

function outcome(parse: (text: string) => unknown, text: string): Outcome {
  try {
    return { value: parse(text) };
  } catch (error) {
    return { threw: String(error) };
  }
}

/** Where `target` (by identity) occurs in `root`, as paths; iterative, since hostile values are thousands deep. */
export function pathsOf(root: unknown, target: object): string[] {
  const found: string[] = [];
  const pending: Array<[unknown, string]> = [[root, '$']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next;
    if (value === target) found.push(path);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) pending.push([child, `${path}.${key}`]);
    }
  }
  return found;
}

/**
 * Where two parsed JSON values first differ (a path), or undefined: Object.is
 * on leaves (so -0 is not 0), same kind, same keys in the same order.
 * Iterative, since hostile values are thousands deep (toEqual recurses).
 */
export function firstDifference(actual: unknown, expected: unknown): string | undefined {
  const pending: Array<[unknown, unknown, string]> = [[actual, expected, '$']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [a, b, path] = next;
    if (Object.is(a, b)) continue;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return path;
    const keys = Object.keys(a);
    if (keys.join('\u0000') !== Object.keys(b).join('\u0000')) return `${path} (keys)`;
    for (const key of keys) pending.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`]);
  }
  return undefined;
}

/**
 * The contract on one line: the parser returns what JSON.parse returns or
 * throws what it throws, and the shared remembered envelope, if any,
 * appears only as the message's `params._meta`. Returns the parsed value.
 */
export function expectParsedLike(parse: (text: string) => unknown, text: string, remembered?: object): unknown {
  const got = outcome(parse, text);
  const want = outcome(JSON.parse, text);
  if ('threw' in want || 'threw' in got) {
    expect(got).toEqual(want);
    return undefined;
  }
  expect(firstDifference(got.value, want.value), 'first difference from JSON.parse').toBeUndefined();
  if (remembered !== undefined) {
    expect(pathsOf(got.value, remembered).filter((path) => path !== '$.params._meta')).toEqual([]);
  }
  return got.value;
}

// ---- the property's pool -------------------------------------------------------------

/** Mostly the one envelope, so that a run repeats it often enough for the shortcut to be taken. */
const repeatedText = fc.oneof({ weight: 6, arbitrary: fc.constant(ENVELOPE_TEXT) }, { weight: 3, arbitrary: fc.constantFrom(...ENVELOPE_TEXTS, ...NON_CANONICAL.map(({ canonical }) => canonical)) });

const metaText = fc.oneof(
  { weight: 6, arbitrary: repeatedText },
  { weight: 2, arbitrary: fc.constantFrom(...NON_CANONICAL.flatMap(({ raw, canonical }) => [raw, canonical])) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)) },
);

/** Values a second `_meta`-like key carries: null and 0 are what a shortcut might put in the envelope's place. */
const otherValue = fc.oneof(fc.constantFrom('null', '0', '{}', '-0', '1e400'), metaText);
/** `_meta` spelled plainly, escaped (the same key to JSON.parse), or as a different key. */
const otherKey = fc.constantFrom('_meta', '_met\\u0061', '\\u005fmeta', 'x_meta', '_meta ', '_Meta');
/** Text right after the envelope: what a number read on (`e5`, `.0`), junk, or nothing. */
const tail = fc.constantFrom('', '', '', 'e5', '.0', 'E-1', '0', ' ', 'x', '}', ',', ',"k":1');
const separator = fc.constantFrom(':', ':', ':', ' :', ': ', ':\t');

/** A tools/call line with the envelope and maybe a second `_meta`-like key in params, arguments or at the top. */
const trickyRequest = fc
  .record({
    id: fc.integer({ min: 0, max: 99 }),
    meta: metaText,
    sep: separator,
    tail,
    metaFirst: fc.boolean(),
    other: fc.option(fc.record({ key: otherKey, value: otherValue, where: fc.constantFrom('params-before', 'params-after', 'arguments', 'top') }), { freq: 2 }),
    args: fc.oneof(fc.constant('{}'), fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify({ text: value }))),
  })
  .map(({ id, meta, sep, tail: after, metaFirst, other, args }) => {
    const envelopeEntry = `"_meta"${sep}${meta}${after}`;
    const otherEntry = other === null ? '' : `"${other.key}":${other.value}`;
    const argsText = other?.where === 'arguments' ? `{"a":1,${otherEntry}}` : args;
    const params = [
      other?.where === 'params-before' ? otherEntry : '',
      metaFirst ? envelopeEntry : '',
      '"name":"echo"',
      `"arguments":${argsText}`,
      metaFirst ? '' : envelopeEntry,
      other?.where === 'params-after' ? otherEntry : '',
    ].filter(Boolean);
    const top = other?.where === 'top' ? `,${otherEntry}` : '';
    return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${params.join(',')}}${top}}`;
  });

/**
 * The repeated envelope written plainly, beside one more `_meta`-like key:
 * the lines a shortcut without its backslash or one-`_meta"` checks gets wrong.
 */
const secondKey = fc
  .record({
    id: fc.integer({ min: 0, max: 99 }),
    key: fc.constantFrom('_meta', '_met\\u0061', '\\u005fmeta', 'x_meta'),
    value: fc.constantFrom('null', '0', '{}', ENVELOPE_TEXT),
    where: fc.constantFrom('params-before', 'params-after', 'arguments', 'top'),
    metaFirst: fc.boolean(),
  })
  .map(({ id, key, value, where, metaFirst }) => {
    const other = `"${key}":${value}`;
    const envelopeEntry = `"_meta":${ENVELOPE_TEXT}`;
    const args = where === 'arguments' ? `{"a":1,${other}}` : '{"a":1}';
    const params = [where === 'params-before' ? other : '', metaFirst ? envelopeEntry : '', `"arguments":${args}`, metaFirst ? '' : envelopeEntry, where === 'params-after' ? other : ''];
    const top = where === 'top' ? `,${other}` : '';
    return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${params.filter(Boolean).join(',')}}${top}}`;
  });

/** A line whose params._meta is written non-canonically while its canonical text appears elsewhere (the learning trap). */
const learningTrap = fc
  .tuple(fc.constantFrom(...NON_CANONICAL), fc.constantFrom('arguments', 'top'))
  .map(([{ raw, canonical }, where]) =>
    where === 'arguments'
      ? `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":${raw},"arguments":{"_meta":${canonical}}}}`
      : `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":${raw}},"_meta":${canonical}}`,
  );

/** A line of another shape around a repeated envelope: in a string, params an array, a batch, pretty-printed. */
const reshaped = fc.tuple(repeatedText, fc.integer({ min: 0, max: 5 })).map(([meta, shape]) => {
  const line = request(3, { text: 'x' }, meta);
  switch (shape) {
    case 0:
      return request(3, { text: `"_meta":${meta}` });
    case 1:
      return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[{"_meta":${meta}}]}`;
    case 2:
      return `[${line}]`;
    case 3:
      return JSON.stringify(JSON.parse(line), null, 2);
    case 4:
      return `{"jsonrpc":"2.0","id":3,"method":"tools/call","_meta":${meta},"params":{"name":"echo"}}`;
    default:
      return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"\\"_meta\\":","_meta":${meta}}}`;
  }
});

/** A modern (or legacy) request repeating one of a few envelopes: what makes the shortcut worth taking. */
const plainRequest = fc
  .tuple(fc.integer({ min: 0, max: 99 }), repeatedText, fc.jsonValue({ maxDepth: 2 }), fc.boolean())
  .map(([id, meta, text, metaFirst]) => (metaFirst ? requestMetaFirst : request)(id, { text }, meta));

const baseLine = fc.oneof(
  { weight: 16, arbitrary: plainRequest },
  { weight: 6, arbitrary: trickyRequest },
  { weight: 6, arbitrary: secondKey },
  { weight: 2, arbitrary: learningTrap },
  { weight: 3, arbitrary: reshaped },
  { weight: 1, arbitrary: hostileText.map(({ text }) => text) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
);

const MUTATION_CHARS = ['"', '\\', ':', ',', '{', '}', '[', ']', ' ', '0', 'e', '.', '_', 'a', 'x', '_meta"', '"_meta":', 'null'];

/** One edit near a `_meta"` (or anywhere): a character inserted, deleted or replaced. */
const mutation: fc.Arbitrary<Edit> = fc.record({
  kind: fc.constantFrom('insert' as const, 'delete' as const, 'replace' as const),
  nearMeta: fc.boolean(),
  offset: fc.integer({ min: -12, max: 400 }),
  text: fc.constantFrom(...MUTATION_CHARS),
});

interface Edit {
  readonly kind: 'insert' | 'delete' | 'replace';
  readonly nearMeta: boolean;
  readonly offset: number;
  readonly text: string;
}

function mutate(line: string, edits: readonly Edit[]): string {
  let text = line;
  for (const edit of edits) {
    const anchor = edit.nearMeta ? Math.max(0, text.indexOf('_meta"')) : 0;
    const at = Math.min(text.length, Math.max(0, anchor + edit.offset));
    const removed = edit.kind === 'insert' ? 0 : 1;
    text = `${text.slice(0, at)}${edit.kind === 'delete' ? '' : edit.text}${text.slice(at + removed)}`;
  }
  return text;
}

/** One line of the pool: mostly as built, sometimes edited a little. */
export const poolLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: baseLine },
  { weight: 2, arbitrary: fc.tuple(baseLine, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([line, edits]) => mutate(line, edits)) },
);
