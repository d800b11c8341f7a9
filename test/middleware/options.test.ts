/**
 * The `middleware` option and the built-ins' own options: each bad value a
 * ConfigError naming the option; each middleware set up exactly once per
 * server, with that server's scheduler and logger.
 */
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, test } from 'vitest';
import {
  cacheReadOnly,
  ConfigError,
  createServer,
  maxResponseBytes,
  rateLimit,
  type Middleware,
  type MiddlewareSetup,
  type ServerOptions,
} from '../../lib/index.js';

function refusal(build: () => unknown): ConfigError {
  try {
    build();
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

function expectRefused(build: () => unknown, option: string, mentions: string = option) {
  const error = refusal(build);
  expect(error).toBeInstanceOf(ConfigError);
  expect(error.option).toBe(option);
  expect(error.message).toContain(mentions);
}

describe('the middleware option', () => {
  test.each([
    ['not an array', () => (() => () => (r: unknown) => r) as unknown],
    ['an array holding a non-function', [() => () => (r: unknown) => r, 'log'] as unknown],
    ['an array holding a middleware whose setup returns no stage', [() => 'stage'] as unknown],
  ])('%s is a ConfigError naming middleware', (_what, middleware) => {
    expectRefused(() => createServer({ middleware } as ServerOptions), 'middleware');
  });

  test('names the offending entry', () => {
    expect(refusal(() => createServer({ middleware: [() => () => (r: unknown) => r, 42] } as unknown as ServerOptions)).message).toContain('middleware[1]');
  });

  test('an empty array, null and undefined are all "no middleware"', () => {
    for (const middleware of [[], null, undefined]) {
      expect(() => createServer({ middleware } as ServerOptions)).not.toThrow();
    }
  });

  test('each middleware is set up once per server, with that server\'s scheduler and logger', () => {
    const setups: MiddlewareSetup[] = [];
    const counting: Middleware = (setup) => {
      setups.push(setup);
      return () => (reply$) => reply$;
    };
    const scheduler = new VirtualTimeScheduler();
    const warned: unknown[] = [];
    const logger = { debug() {}, info() {}, warn: (...args: unknown[]) => void warned.push(args), error() {} };
    createServer({ middleware: [counting], scheduler, logger });
    createServer({ middleware: [counting] });
    expect(setups).toHaveLength(2);
    expect(setups[0]!.scheduler).toBe(scheduler);
    // The server's logger: the given one behind the guard that keeps a throwing logger from crashing anything.
    setups[0]!.logger.warn({}, 'through');
    expect(warned).toStrictEqual([[{}, 'through']]);
    expect(setups[1]!.scheduler).not.toBe(scheduler);
  });
});

describe('the built-ins refuse bad options where they are built', () => {
  test.each([
    ['rateLimit.perCaller.calls', () => rateLimit({ perCaller: { calls: 0 } })],
    ['rateLimit.perCaller.calls', () => rateLimit({ perCaller: { calls: 1.5 } })],
    ['rateLimit.perCaller.perMs', () => rateLimit({ perCaller: { perMs: -1 } })],
    ['rateLimit.perCaller', () => rateLimit({ perCaller: 5 as never })],
    ['rateLimit.maxCallers', () => rateLimit({ maxCallers: 0 })],
    ['maxResponseBytes', () => maxResponseBytes(0)],
    ['maxResponseBytes', () => maxResponseBytes(Number.POSITIVE_INFINITY)],
    ['cacheReadOnly.ttlMs', () => cacheReadOnly({ ttlMs: 0 })],
    ['cacheReadOnly.maxEntries', () => cacheReadOnly({ maxEntries: -5 })],
    ['cacheReadOnly.maxEntryBytes', () => cacheReadOnly({ maxEntryBytes: '1k' as never })],
    ['cacheReadOnly.shareAcrossCallers', () => cacheReadOnly({ shareAcrossCallers: 'yes' as never })],
  ])('%s', (option, build) => {
    expectRefused(build, option);
  });

  test('their defaults build', () => {
    expect(() => createServer({ middleware: [rateLimit(), maxResponseBytes(), cacheReadOnly()] })).not.toThrow();
  });
});
