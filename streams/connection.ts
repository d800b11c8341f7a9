/**
 * connection: one connection's flow, the design's data flow in order, as
 * one `pipe`. Each stage is an operator in a file of its own (stages/),
 * with its contract and a marble diagram there and a marble spec beside it
 * (test/stages/):
 *
 *   authenticate      who sent each message (an AuthenticatedMessage's principal, or the connection's)
 *   classifyEnvelope  the JSON-RPC envelope checked: request | notification | response | drop | invalid
 *   decideEra         legacy or modern, per connection or per request; the initialization phase
 *   route             a request to its era's method, whose reply stream comes out; responses and
 *                     notifications acted on; invalid input as its error
 *   replyEach         every reply stream subscribed at once (mergeMap-like), its reply out when ready
 *
 * Inside a request's reply stream (route builds it, methods/ and worker.ts):
 * admit (the in-flight caps: `server_busy` past a bound, never a queue),
 * work (raced against the deadline; the handler's signal aborts on every
 * cancellation), for tools/call authorize, then run, deny or ask (a legacy
 * ask parks: the answer, the timeout or eviction, whichever is first; a
 * modern ask is an approval ticket), and encode (the era's wire shape, the
 * first reply only, nothing after a cancel: request-reply.ts).
 *
 * The replies are merged with the connection's pushes and the broadcasts
 * into the outbound by McpServer (mcp-server.ts: connect, serveOne).
 *
 * ```
 * inbound:   --init--call------ping--|
 * outbound:  --I-------------P---C---|   (the call's reply C whenever its worker answers; 'cancel': at the
 *                                          inbound's end every call still in flight is cancelled)
 * ```
 */
import { pipe, type OperatorFunction } from 'rxjs';
import type { JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { authenticate } from './stages/authenticate.js';
import { classifyEnvelope } from './stages/classify-envelope.js';
import { decideEra } from './stages/decide-era.js';
import { replyEach, type OnSourceEnd } from './stages/reply-each.js';
import { route } from './stages/route.js';
import type { Origin, ServerCore } from './state/server-core.js';

export function connection(core: ServerCore, origin: Origin, onSourceEnd: OnSourceEnd = 'cancel'): OperatorFunction<unknown, JsonRpcResponse> {
  return pipe(
    authenticate(core, origin),
    classifyEnvelope(core),
    decideEra(core),
    route(core),
    replyEach(onSourceEnd, (error) => core.options.logger.error({ connId: origin.connId, err: error }, 'a call failed inside the pipeline')),
  );
}

