/** Telemetry: what the server reports on `server.events$`. */
import type { ConnId } from './context.js';

export type ServerEvent =
  | {
      readonly type: 'client_capabilities_evicted';
      readonly connId: ConnId;
      readonly size: number;
      readonly maxClientCapabilities: number;
      readonly liveSubscriber: boolean;
    }
  | { readonly type: 'elicitation_parked'; readonly connId: ConnId; readonly tool: string; readonly parked: number }
  | { readonly type: 'elicitation_closed'; readonly connId: ConnId; readonly tool: string; readonly outcome: string }
  | { readonly type: 'callback_failed'; readonly connId: ConnId; readonly method: string; readonly reason: string };
