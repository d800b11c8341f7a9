/**
 * Telemetry: what the server reports on `server.events$`. An event naming a
 * connection of an authenticated caller also names its principal, by key
 * only: never a claim, never a token.
 */
import type { Principal } from './auth/principal.js';
import type { ConnId } from './context.js';

/** `{ principal: key }` for a principal, nothing otherwise: spread into an event. */
export function principalField(principal: Principal | undefined): { readonly principal?: string } {
  return principal === undefined ? {} : { principal: principal.key };
}

export type ServerEvent =
  | {
      readonly type: 'client_capabilities_evicted';
      readonly connId: ConnId;
      readonly size: number;
      readonly maxClientCapabilities: number;
      readonly liveSubscriber: boolean;
      readonly principal?: string;
    }
  | { readonly type: 'elicitation_parked'; readonly connId: ConnId; readonly tool: string; readonly parked: number; readonly principal?: string }
  | { readonly type: 'elicitation_closed'; readonly connId: ConnId; readonly tool: string; readonly outcome: string; readonly principal?: string }
  | { readonly type: 'callback_failed'; readonly connId: ConnId; readonly method: string; readonly reason: string; readonly principal?: string };
