/**
 * AuthenticatedMessage: one inbound message with the principal its own
 * request was verified as, for a transport that authenticates every request
 * of a long-lived connection (a Streamable HTTP session: each POST carries
 * its own token). It goes into `server.connect`'s inbound stream in place of
 * the bare message, so a refreshed token (the same principal key with new
 * scopes or expiry) reaches that message's authorizer and handler contexts.
 *
 * It is a class instance made by the transport, beside the message: nothing
 * parsed from JSON can be one. The core accepts it only when its principal
 * is a real one (makePrincipal's) with the connection's principal key; any
 * other is dropped, never run under the wrong identity.
 */
import { isPrincipal, type Principal } from './principal.js';

/** One inbound message with the principal its own request was verified as, for a transport that authenticates every request of a long-lived connection. Made by the transport, never parsed from JSON. */
export class AuthenticatedMessage {
  constructor(
    readonly message: unknown,
    readonly principal: Principal,
  ) {
    if (!isPrincipal(principal)) throw new TypeError('principal must be a Principal made by makePrincipal');
  }
}
