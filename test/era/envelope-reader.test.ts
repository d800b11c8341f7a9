/**
 * EnvelopeReader (streams/modern/envelope.ts): a per-connection readEnvelope
 * that answers a repeated envelope (same version, client info and log
 * level, empty capabilities) with the previous ModernRequest, and reads
 * anything else in full, so its answers are readEnvelope's in every case.
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
  test('a repeated envelope is the previous ModernRequest, equal to what readEnvelope reads', () => {
    const reader = new EnvelopeReader();
    const first = reader.read(1, params(base()));
    const second = reader.read(2, params(base()));
    expect(second).toBe(first);
    expect(second).toStrictEqual(readEnvelope(2, params(base())));
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

  test('an invalid envelope between two valid ones answers its error and forgets nothing valid', () => {
    const reader = new EnvelopeReader();
    const first = reader.read(1, params(base()));
    expect(reader.read(2, params({ ...base(), [PV]: 7 }))).toMatchObject({ id: 2, error: { code: -32602 } });
    expect(reader.read(3, params(base()))).toBe(first);
  });

  test('a changed log level is remembered in turn', () => {
    const reader = new EnvelopeReader();
    const debug = reader.read(1, params({ ...base(), [LEVEL]: 'debug' }));
    expect(debug).toMatchObject({ logLevel: 'debug' });
    expect(reader.read(2, params({ ...base(), [LEVEL]: 'debug' }))).toBe(debug);
    expect(reader.read(3, params(base()))).not.toHaveProperty('logLevel');
  });
});
