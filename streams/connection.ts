/**
 * connection: one connection's flow, the design's data flow in order, as
 * one `pipe`. Each stage is an operator in a file of its own (stages/),
 * with its contract and a marble diagram there and a marble spec beside it
 * (test/stages/):
 *
 *   authenticate      who sent each message (an AuthenticatedMessage's principal, or the connection's)
 *   classifyEnvelope  the JSON-RPC envelope checked: request | notification | response | drop | invalid
 *   decideEra         legacy or modern, per connection or per request; the initialization phase
 *   route             a request to its era's method, whose reply stream comes out with the request;
 *                     responses and notifications acted on; invalid input as its error
 *   encode            a request's reply stream made its reply: the first value in the era's wire shape,
 *                     nothing after a cancel, a failure as an internal error; observed when someone listens
 *   replyEach         every reply stream opened at once (mergeMap-like), its reply out when ready
 *
 * Inside a request's reply stream, the method's own stages (methods/): for a
 * user's callback a worker (worker.ts) admits it (the in-flight caps:
 * `server_busy` past a bound, never a queue) and works it (raced against the
 * deadline queue; the handler's signal aborts on every cancellation: the
 * call's, the connection's end, the timeout); for tools/call the worker first
 * authorizes, then runs, denies or asks, and a legacy ask parks
 * (methods/legacy/ask-user.ts: the answer, the timeout or eviction, whichever
 * is first) while a modern one is an approval ticket. Admit and work are one
 * object per call, not two operators: a thousand calls may wait, each holding
 * only what it needs (bench/micro/waiting-call.ts).

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
import { encode, type Encoded } from './stages/encode.js';
import type { Incoming } from './stages/incoming.js';
import { replyEach, type OnSourceEnd } from './stages/reply-each.js';
import { route, type Routed } from './stages/route.js';
import type { Origin, ServerCore } from './state/server-core.js';

/** The stages that read nothing of a connection but its messages (each message carries its origin). */
interface ServerStages {
  readonly classifyEnvelope: OperatorFunction<Incoming, Incoming>;
  readonly decideEra: OperatorFunction<Incoming, Incoming>;
  readonly route: OperatorFunction<Incoming, Routed>;
  readonly encode: OperatorFunction<Routed, Encoded>;
}

/**
 * Made once per server and shared by its connections (an operator may be
 * applied to any number of sources): a stateless transport's connection of
 * one request (serveOne) builds only the stages that are its own.
 */
const serverStages = new WeakMap<ServerCore, ServerStages>();

function stagesOf(core: ServerCore): ServerStages {
  let stages = serverStages.get(core);
  if (stages === undefined) {
    stages = { classifyEnvelope: classifyEnvelope(core), decideEra: decideEra(core), route: route(core), encode: encode(core) };
    serverStages.set(core, stages);
  }
  return stages;
}

export function connection(core: ServerCore, origin: Origin, onSourceEnd: OnSourceEnd = 'cancel'): OperatorFunction<unknown, JsonRpcResponse> {
  const stages = stagesOf(core);
  return pipe(
    authenticate(core, origin),
    stages.classifyEnvelope,
    stages.decideEra,
    stages.route,
    stages.encode,
    replyEach(onSourceEnd, (error) => core.options.logger.error({ connId: origin.connId, err: error }, 'a call failed inside the pipeline')),
  );
}

