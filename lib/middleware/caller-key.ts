/**
 * Who a call counts against, for the built-in stages that keep state per
 * caller (rate budgets, cache entries): the best identity there is. Today
 * that is the peer (ConnectOptions.peer, else the connection id); once
 * authentication gives calls a principal, this is the one place that keys
 * on it instead.
 */
import type { AdmittedCall } from './types.js';

export function callerKey(call: AdmittedCall): string {
  return call.peer;
}
