/**
 * Who a call counts against, for the built-in stages that keep state per
 * caller (rate budgets, cache entries): the best identity there is. The
 * server already makes the fairness key the principal's when the transport
 * authenticated the caller (`principal:<key>`), else the peer's address,
 * else the connection: one key, the same one admission and parking use.
 */
import type { AdmittedCall } from './types.js';

export function callerKey(call: AdmittedCall): string {
  return call.peer;
}
