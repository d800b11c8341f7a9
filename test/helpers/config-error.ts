/**
 * The ConfigError a setting is refused with, for asserting on its message
 * and fields: anything else thrown is rethrown, and no error at all fails
 * the test.
 */
import { ConfigError } from '../../lib/index.js';

export function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

export async function configErrorOfAsync(run: () => Promise<unknown>): Promise<ConfigError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
