/**
 * Property of RepeatedEnvelopeParser (transports/repeated-envelope.ts): fed
 * one connection's lines in order, whatever came before, each parse is
 * JSON.parse of that line (deep-equal, -0 and all) or the same throw, and
 * the remembered envelope it shares appears only as `params._meta`.
 * Lines come from envelope-lines.ts: modern requests repeating a few
 * envelopes, legacy ones, lines built to trick the shortcut, hostile and
 * random JSON, and all of these with characters inserted, deleted or
 * replaced around and inside the `_meta`.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { RepeatedEnvelopeParser } from '../../transports/repeated-envelope.js';
import { ENVELOPE, envelope, expectParsedLike, poolLine, request } from './envelope-lines.js';

const NUM_RUNS = 300;

/** The envelope the parser shares, read back from a line that repeats it (undefined when none is shared). */
function sharedEnvelope(value: unknown): object | undefined {
  const meta = (value as { params?: { _meta?: unknown } } | undefined)?.params?._meta;
  return typeof meta === 'object' && meta !== null && Object.isFrozen(meta) ? meta : undefined;
}

describe('RepeatedEnvelopeParser: every line is JSON.parse of it, whatever came before', () => {
  test('random sequences from the pool, one parser for the whole sequence', () => {
    let shared = 0;
    fc.assert(
      fc.property(fc.array(poolLine, { minLength: 5, maxLength: 25 }), (lines) => {
        const parser = new RepeatedEnvelopeParser();
        let remembered: object | undefined;
        for (const line of lines) {
          const value = expectParsedLike(parser.parse, line, remembered);
          const meta = sharedEnvelope(value);
          if (meta !== undefined) {
            remembered = meta;
            shared += 1;
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
    // The runs exercised the shortcut, not only the full parse.
    expect(shared).toBeGreaterThan(NUM_RUNS / 2);
  });

  test('after a remembered envelope, a client whose _meta differs on every line (a trace id) still gets JSON.parse of each', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), fc.boolean()), { minLength: 1, maxLength: 40 }),
        (calls) => {
          const parser = new RepeatedEnvelopeParser();
          parser.parse(request(0, {}));
          const remembered = sharedEnvelope(parser.parse(request(1, {})));
          expect(remembered).toStrictEqual(ENVELOPE);
          calls.forEach(([trace, text, legacy], i) => {
            const meta = legacy ? { progressToken: trace } : envelope('client-a', { trace });
            expectParsedLike(parser.parse, request(i + 2, { text }, JSON.stringify(meta)), remembered);
          });
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
