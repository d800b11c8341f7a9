/**
 * classifyEnvelope: each message's JSON-RPC envelope checked, in the
 * contract's order (classify-message.ts), before anything else reads it: a
 * request, a notification, a response to one of the server's own requests,
 * something to drop, or an invalid message with the error it earns. Bad
 * input becomes that error, never a throw; a message whose very reading
 * throws (a direct caller's getter or Proxy) is answered as an internal
 * error (id null) and logged.
 *
 * ```
 * incoming:  --m1-----m2-----m3--|     m1 a request, m2 [1,2], m3 a response
 * result:    --i1-----i2-----i3--|     i.classified: request, invalid(-32600 batch), response
 * ```
 */
import type { OperatorFunction } from 'rxjs';
import { classifyMessage } from '../classify-message.js';
import { pipelineFailure, reportPipelineFailure } from '../pipeline-failure.js';
import type { ServerCore } from '../state/server-core.js';
import type { Incoming } from './incoming.js';
import { perMessage } from './per-message.js';

/** Fills `incoming.classified`; returns it. */
export function classifyIncoming(core: ServerCore, incoming: Incoming): Incoming {
  try {
    incoming.classified = classifyMessage(incoming.message);
  } catch (error) {
    incoming.classified = { kind: 'invalid', reply: pipelineFailure(core, incoming.origin.connId, null, error) };
  }
  return incoming;
}

export function classifyEnvelope(core: ServerCore): OperatorFunction<Incoming, Incoming> {
  return perMessage(
    (incoming: Incoming) => classifyIncoming(core, incoming),
    (error) => reportPipelineFailure(core, '', error),
  );
}
