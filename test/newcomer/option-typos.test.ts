/**
 * Issue 21.5: a mistyped option name is refused with the name it most likely
 * meant ("did you mean"), by edit distance over the known names; a name far
 * from every known one is refused without a guess.
 */
import { describe, expect, test } from 'vitest';
import { createServer, jwtBearer } from '../../lib/index.js';
import { serveWebSocket } from '../../transports/index.js';
import { editDistance, nearestName } from '../../lib/did-you-mean.js';
import { configErrorOf, configErrorOfAsync } from '../helpers/config-error.js';

describe('createServer', () => {
  test.each([
    ['elicitationTimeout', 'elicitationTimeoutMs'],
    ['callbackTimeout', 'callbackTimeoutMs'],
    ['maxInflight', 'maxInFlight'],
    ['authoriser', 'authorizer'],
    ['schedular', 'scheduler'],
    ['exposeError', 'exposeErrors'],
  ])('%s: "did you mean %s?", naming the option', (typo, meant) => {
    const error = configErrorOf(() => createServer({ [typo]: 1 } as never));
    expect(error.option).toBe(typo);
    expect(error.message).toBe(`unknown option ${typo}; did you mean ${meant}?`);
  });

  test('a name near nothing gets no guess', () => {
    expect(configErrorOf(() => createServer({ colour: 'blue' } as never)).message).toBe('unknown option colour');
  });
});

test('the WebSocket transport and the authenticators guess the same way', async () => {
  const ws = await configErrorOfAsync(() => serveWebSocket(createServer(), { port: 0, maxPayloads: 10 } as never));
  expect(ws.message).toBe('unknown option maxPayloads; did you mean maxPayload?');
  const jwt = configErrorOf(() => jwtBearer({ issuer: 'https://issuer.example', audiences: ['a'], audience: 'a' } as never));
  expect(jwt.message).toBe('unknown option jwtBearer.audience; did you mean jwtBearer.audiences?');
});

test('edit distance: insertions, deletions and substitutions, case-insensitive; a guess only when near', () => {
  expect(editDistance('kitten', 'sitting')).toBe(3);
  expect(editDistance('maxInflight', 'maxInFlight')).toBe(0);
  expect(nearestName('pagesize', ['pageSize', 'name'])).toBe('pageSize');
  expect(nearestName('timeout', ['callbackTimeoutMs', 'elicitationTimeoutMs'])).toBeUndefined();
});
