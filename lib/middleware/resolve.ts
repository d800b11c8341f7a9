/**
 * The `middleware` server option: checked, and each middleware set up once
 * for its server. None at all resolves to `null`, which is how the pipeline
 * knows to keep its fast path (no stage, no Observable, no allocation).
 */
import { ConfigError } from '../errors.js';
import type { CallStage, MiddlewareSetup } from './types.js';

export function resolveMiddleware(value: unknown, setup: MiddlewareSetup): readonly CallStage[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new ConfigError('middleware', 'middleware must be an array of middleware functions');
  const stages: CallStage[] = [];
  value.forEach((middleware: unknown, index) => {
    if (typeof middleware !== 'function') {
      throw new ConfigError('middleware', `middleware[${index}] must be a function (setup) => (call) => operator`);
    }
    const stage: unknown = middleware(setup);
    if (typeof stage !== 'function') {
      throw new ConfigError('middleware', `middleware[${index}] must return a function (call) => operator when set up`);
    }
    stages.push(stage as CallStage);
  });
  return stages.length === 0 ? null : stages;
}
