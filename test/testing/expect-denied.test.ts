/**
 * expectDenied and denialOf read the seed's deny shape from a tool result,
 * and fail with node's AssertionError saying what the result was instead:
 * a success, another failure, or the deny with another detail.
 */
import { AssertionError } from 'node:assert';
import { describe, expect, test } from 'vitest';
import { denialOf, expectDenied } from '../../testing/index.js';

const deny = (detail: string, extra: Record<string, string> = {}) => ({
  content: [{ type: 'text', text: JSON.stringify({ error: 'authorization_required', tool: 'wipe', decision: 'ask', detail, ...extra }) }],
  isError: true,
});

describe('expectDenied', () => {
  test('returns the deny, with or without a detail to match (a string exactly, or a RegExp)', () => {
    expect(expectDenied(deny('timed out'), 'timed out')).toEqual({ error: 'authorization_required', tool: 'wipe', decision: 'ask', detail: 'timed out' });
    expect(expectDenied(deny('client cannot be asked (no elicitation capability)', { prompt: 'Wipe?' }), /^client cannot be asked/).prompt).toBe('Wipe?');
    expect(expectDenied(deny('declined')).detail).toBe('declined');
  });

  test('another detail: an AssertionError naming both', () => {
    const error = (() => {
      try {
        expectDenied(deny('declined'), 'timed out');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AssertionError);
    expect((error as Error).message).toBe('expected the wipe call denied with detail "timed out", but its detail is "declined" (decision ask)');
    expect(error).toMatchObject({ actual: 'declined', expected: 'timed out' });
  });

  test('a success, or a failure that is not a deny: an AssertionError saying what it was', () => {
    expect(() => expectDenied({ content: [{ type: 'text', text: 'wiped' }] }, 'timed out')).toThrow('expected the call to be denied (timed out), but it was not denied: it answered "wiped"');
    expect(() => expectDenied({ content: [{ type: 'text', text: 'Error: callback_timeout' }], isError: true })).toThrow(
      'expected the call to be denied, but it failed otherwise: "Error: callback_timeout"',
    );
  });
});

describe('denialOf', () => {
  test('undefined for anything but the deny shape', () => {
    expect(denialOf(deny('declined'))?.detail).toBe('declined');
    expect(denialOf({ content: [{ type: 'text', text: '{"error":"authorization_required"}' }], isError: true })).toBeUndefined();
    expect(denialOf({ content: [{ type: 'text', text: 'not json' }], isError: true })).toBeUndefined();
    expect(denialOf({ ...deny('declined'), isError: false })).toBeUndefined();
    expect(denialOf({ content: [] })).toBeUndefined();
  });
});
