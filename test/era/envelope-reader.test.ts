/**
 * EnvelopeReader (streams/modern/envelope.ts): a per-connection readEnvelope
 * that skips the checks for a repeated envelope (same version, client info
 * and log level, empty capabilities) and reads anything else in full. Its
 * answers are readEnvelope's in every case, each request's its own object
 * holding what that request sent.
 */
import { describe, expect, test } from 'vitest';
import { EnvelopeReader, readEnvelope } from '../../streams/modern/envelope.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const LEVEL = 'io.modelcontextprotocol/logLevel';

const base = () => ({ [PV]: '2026-07-28', [CAPS]: {}, [INFO]: { name: 'c', version: '1' } });
const params = (meta: Record<string, unknown>) => ({ name: 'echo', _meta: meta });

describe('EnvelopeReader', () => {
  test('a repeated envelope is what readEnvelope reads, a fresh object holding this request’s own capabilities', () => {
    const reader = new EnvelopeReader();
    const first = reader.read(1, params(base()));
    const sent = params(base());
    const second = reader.read(2, sent);
    expect(second).toStrictEqual(readEnvelope(2, params(base())));
    expect(second).not.toBe(first);
    expect(second).toHaveProperty('clientCapabilities', expect.anything());
    expect((second as { clientCapabilities: unknown }).clientCapabilities).toBe(sent._meta[CAPS]);
    expect((second as { clientInfo: unknown }).clientInfo).not.toBe((first as { clientInfo: unknown }).clientInfo);
  });

  test.each([
    ['another version', { ...base(), [PV]: '2025-11-25' }],
    ['another client version', { ...base(), [INFO]: { name: 'c', version: '2' } }],
    ['no client info', { [PV]: '2026-07-28', [CAPS]: {} }],
    ['a log level', { ...base(), [LEVEL]: 'info' }],
    ['a bad log level', { ...base(), [LEVEL]: 'loud' }],
    ['capabilities with a member', { ...base(), [CAPS]: { elicitation: {} } }],
    ['capabilities that are not an object', { ...base(), [CAPS]: [] }],
    ['client info that is not an object', { ...base(), [INFO]: 'c 1' }],
  ])('after a valid envelope, %s is read in full: readEnvelope’s answer, not the previous one', (_name, meta) => {
    const reader = new EnvelopeReader();
    const first = reader.read(1, params(base()));
    const next = reader.read(2, params(meta));
    expect(next).not.toBe(first);
    expect(next).toStrictEqual(readEnvelope(2, params(meta)));
  });

  test('an envelope with capability members is never reused: each request gets its own, as sent', () => {
    const reader = new EnvelopeReader();
    const meta = () => ({ ...base(), [CAPS]: { elicitation: { form: {} } } });
    const first = reader.read(1, params(meta()));
    const second = reader.read(2, params(meta()));
    expect(second).not.toBe(first);
    expect(second).toStrictEqual(first);
  });

  test('an invalid envelope between two valid ones answers its error; the next valid one is read as before', () => {
    const reader = new EnvelopeReader();
    const first = reader.read(1, params(base()));
    expect(reader.read(2, params({ ...base(), [PV]: 7 }))).toMatchObject({ id: 2, error: { code: -32602 } });
    expect(reader.read(3, params(base()))).toStrictEqual(first);
  });

  test('a log level repeats like the rest, and a request without one after it has none', () => {
    const reader = new EnvelopeReader();
    const debug = reader.read(1, params({ ...base(), [LEVEL]: 'debug' }));
    expect(debug).toMatchObject({ logLevel: 'debug' });
    expect(reader.read(2, params({ ...base(), [LEVEL]: 'debug' }))).toStrictEqual(debug);
    expect(reader.read(3, params(base()))).not.toHaveProperty('logLevel');
    expect(reader.read(4, params(base()))).toStrictEqual(readEnvelope(4, params(base())));
  });

  test('a repeat without client info, after one without client info, has none; one with it is read in full', () => {
    const reader = new EnvelopeReader();
    const bare = { [PV]: '2026-07-28', [CAPS]: {} };
    reader.read(1, params(bare));
    expect(reader.read(2, params({ ...bare }))).toStrictEqual({ protocolVersion: '2026-07-28', clientCapabilities: {} });
    expect(reader.read(3, params(base()))).toStrictEqual(readEnvelope(3, params(base())));
    expect(reader.read(4, params({ ...base(), [INFO]: { name: 'c' } }))).toMatchObject({ id: 4, error: { code: -32602 } });
  });

  describe('a frozen envelope given again (what the stdio and WebSocket parser shares)', () => {
    const deepFrozen = (meta: Record<string, unknown>) => {
      for (const value of Object.values(meta)) if (typeof value === 'object' && value !== null) Object.freeze(value);
      return Object.freeze(meta);
    };

    test('is read once: the same frozen ModernRequest, equal to what readEnvelope reads', () => {
      const reader = new EnvelopeReader();
      const meta = deepFrozen({ ...base(), [CAPS]: { elicitation: Object.freeze({}) }, [LEVEL]: 'info' });
      const first = reader.read(1, params(meta));
      const second = reader.read(2, params(meta));
      expect(second).toBe(first);
      expect(second).toStrictEqual(readEnvelope(2, params(meta)));
      expect(Object.isFrozen(second)).toBe(true);
      expect(Object.isFrozen((second as { clientInfo: object }).clientInfo)).toBe(true);
    });

    test('a bad frozen envelope is refused each time it comes', () => {
      const reader = new EnvelopeReader();
      reader.read(1, params(base()));
      const bad = deepFrozen({ ...base(), [LEVEL]: 'loud' });
      expect(reader.read(2, params(bad))).toMatchObject({ id: 2, error: { code: -32602 } });
      expect(reader.read(3, params(bad))).toMatchObject({ id: 3, error: { code: -32602 } });
    });

    test.each([
      ['the envelope itself is not frozen', () => ({ ...base() })],
      ['its client info is not frozen', () => Object.freeze({ ...base(), [INFO]: { name: 'c', version: '1' } })],
      ['a capability inside is not frozen', () => Object.freeze({ ...base(), [INFO]: Object.freeze({ name: 'c', version: '1' }), [CAPS]: Object.freeze({ sampling: {} }) })],
    ])('is read again when %s, so a change inside it is seen', (_name, make) => {
      const reader = new EnvelopeReader();
      const meta = make() as Record<string, unknown>;
      const first = reader.read(1, params(meta));
      const second = reader.read(2, params(meta));
      expect(second).not.toBe(first);
      expect(second).toStrictEqual(readEnvelope(2, params(meta)));
    });

    test('another frozen envelope replaces the one remembered', () => {
      const reader = new EnvelopeReader();
      const a = deepFrozen(base());
      const b = deepFrozen({ ...base(), [INFO]: { name: 'other', version: '2' } });
      const fromA = reader.read(1, params(a));
      const fromB = reader.read(2, params(b));
      expect(fromB).toMatchObject({ clientInfo: { name: 'other', version: '2' } });
      expect(reader.read(3, params(b))).toBe(fromB);
      expect(reader.read(4, params(a))).not.toBe(fromA);
      expect(reader.read(5, params(a))).toStrictEqual(fromA);
    });
  });
});
