/**
 * decideEra: each message under its era (era-decision.ts), decided once,
 * here, before any method is looked up: pinned per connection (stdio,
 * WebSocket), per request (HTTP, direct callers) or legacy only (sessions).
 * A request claiming the modern era carries its validated envelope on; a
 * bad envelope is its error; the legacy initialization phase drops or
 * refuses what comes before `initialize`. Everything but requests passes
 * through as it is.
 *
 * ```
 * incoming (per-connection):  --d-----r-----m--|    d server/discover (claim), r initialize (no claim), m a claiming request
 * result:                     --d'----r'----m'-|    d' modern (not pinned), r' legacy (pins legacy), m' invalid(-32600)
 * ```
 */
import type { OperatorFunction } from 'rxjs';
import { perMessageEra } from '../era-decision.js';
import { pipelineFailure, reportPipelineFailure } from '../pipeline-failure.js';
import type { ServerCore } from '../state/server-core.js';
import type { Incoming } from './incoming.js';
import { perMessage } from './per-message.js';

/** Fills `incoming.decided` from `incoming.classified`; returns it. */
export function decideIncoming(core: ServerCore, incoming: Incoming): Incoming {
  const classified = incoming.classified!;
  try {
    incoming.decided = (incoming.origin.eraDecision ?? perMessageEra()).decide(classified);
  } catch (error) {
    // Only a direct caller's object can make the decision throw (a getter, a Proxy).
    incoming.decided = { kind: 'invalid', reply: pipelineFailure(core, incoming.origin.connId, null, error) };
  }
  return incoming;
}

export function decideEra(core: ServerCore): OperatorFunction<Incoming, Incoming> {
  return perMessage(
    (incoming: Incoming) => decideIncoming(core, incoming),
    (error) => reportPipelineFailure(core, '', error),
  );
}
