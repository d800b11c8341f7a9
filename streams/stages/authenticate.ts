/**
 * authenticate: each inbound message with who sent it. A plain message is
 * the connection's; an AuthenticatedMessage (a transport that verifies each
 * request) runs under its own principal, which must have the connection's
 * principal key: one with another key, or on a connection without a
 * principal, is dropped and logged. Identity travels beside the message,
 * never inside it.
 *
 * ```
 * inbound:  --m--A(m', p)--A(m'', q)--|      p: the connection's key, q: another
 * result:   --i--i'--------------------|     i = Incoming(m, origin), i' = Incoming(m', origin under p)
 * ```
 */
import type { OperatorFunction } from 'rxjs';
import { AuthenticatedMessage } from '../../lib/auth/authenticated.js';
import { reportPipelineFailure } from '../pipeline-failure.js';
import { originOf } from '../principal-shapes.js';
import type { Origin, ServerCore } from '../state/server-core.js';
import { Incoming, perMessage } from './incoming.js';

/** One message's Incoming, or undefined when it is dropped. */
function incomingOf(core: ServerCore, origin: Origin, message: unknown): Incoming | undefined {
  if (!(message instanceof AuthenticatedMessage)) return new Incoming(message, origin);
  if (message.principal.key !== origin.principal?.key) {
    core.options.logger.error({ connId: origin.connId }, 'a message authenticated as another principal than its connection was dropped');
    return undefined;
  }
  return new Incoming(message.message, message.principal === origin.principal ? origin : originOf(origin.connId, origin.transport, origin.peer, message.principal, origin.mode, origin.eraDecision));
}

export function authenticate(core: ServerCore, origin: Origin): OperatorFunction<unknown, Incoming> {
  return perMessage(
    (message: unknown) => incomingOf(core, origin, message),
    (error) => reportPipelineFailure(core, origin.connId, error),
  );
}
