/**
 * subscriptions/listen (MCP 2026-07-28), in this order:
 * 1. only on a modern request: on the legacy wire it stays -32601 "Unknown
 *    method" (a legacy client sees no change). A request is modern when its
 *    scope says `era: 'modern'`; until the core carries the era, when its
 *    `_meta` claims a modern protocol version (`isModernListen`);
 * 2. the id names the subscription, so it may not be null (-32600);
 * 3. `notifications` checked (-32602, see listen-filter.ts) and narrowed to
 *    what this server honours;
 * 4. the read gate (method `subscriptions/listen`, args `{ notifications }`
 *    with the honoured filter), in a worker that is released before the
 *    stream starts; with no read authorizer no worker is taken at all;
 * 5. the stream (listen.ts). In push mode (handleMessage) the caller gets
 *    `null` now and the stream's eventual reply is pushed.
 */
import { of, type Observable } from 'rxjs';
import { DENY_DETAIL } from '../../lib/deny-details.js';
import { callbackFailed, invalidParams, invalidRequest, methodNotFound, readDenied } from '../../lib/errors.js';
import { isPlainObject, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import { authorize } from '../authorize.js';
import { authorizationContext } from '../call-context.js';
import { honouredFilter, parseListenFilter, type ListenCapabilities, type ListenFilter } from '../listen-filter.js';
import { listenStream } from '../listen.js';
import type { MethodHandler, RequestScope, ServerCore } from '../server-core.js';
import { worker } from '../worker.js';
import { reportAuthorizerFault, reportFailure, workerOptions } from '../worker-scope.js';
import { pushEventually } from './ask-user.js';
import { SERVER_CAPABILITIES } from './initialize.js';

/** The revisions whose requests may listen; the modern core's version list replaces this when it lands. */
const MODERN_VERSIONS: ReadonlySet<string> = new Set(['2026-07-28']);
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/**
 * Whether this request may use subscriptions/listen: the scope's era when
 * the core sets one, else a modern protocol version claimed in `_meta`.
 */
export function isModernListen(scope: RequestScope): boolean {
  const era = (scope as { readonly era?: unknown }).era;
  if (era !== undefined) return era === 'modern';
  const meta = scope.params?._meta;
  if (!isPlainObject(meta)) return false;
  const claim = meta[PROTOCOL_VERSION_META];
  return typeof claim === 'string' && MODERN_VERSIONS.has(claim);
}

function isServed(core: ServerCore): (uri: string) => boolean {
  const registry = core.options.registry;
  return (uri) => registry.resource(uri) !== undefined || registry.matchTemplate(uri) !== undefined;
}

/** The read gate, then the stream; the gate's worker ends before the stream begins. */
function gatedStream(core: ServerCore, scope: RequestScope, filter: ListenFilter): Observable<JsonRpcResponse> {
  const readAuthorizer = core.options.readAuthorizer;
  if (readAuthorizer === null) return listenStream(core, scope, filter);
  return worker(
    workerOptions(core, scope),
    () => authorize(readAuthorizer, scope.method, { notifications: filter }, authorizationContext(scope)),
    (outcome): JsonRpcResponse | Observable<JsonRpcResponse> => {
      if (!outcome.ok) {
        reportFailure(core, scope, outcome);
        return callbackFailed(scope.id, scope.method, outcome.reason);
      }
      const verdict = outcome.value;
      if (verdict.kind === 'allow') return listenStream(core, scope, filter);
      reportAuthorizerFault(core, scope, verdict);
      return readDenied(scope.id, scope.method, verdict.kind === 'ask' ? DENY_DETAIL.interactiveApprovalUnsupported : verdict.detail);
    },
  );
}

/** A listen handler narrowing filters against `capabilities` (what the server declares; `server/discover` should say the same). */
export function listenHandler(capabilities: ListenCapabilities = SERVER_CAPABILITIES): MethodHandler {
  return (core, scope) => {
    if (!isModernListen(scope)) return of(methodNotFound(scope.id, scope.method));
    if (scope.id === null) return of(invalidRequest(null, 'Invalid Request: subscriptions/listen needs a string or number id (it names the subscription)'));
    const parsed = parseListenFilter(scope.params, {
      maxUris: core.options.maxSubscriptionsPerConnection,
      maxUriLength: core.options.maxSubscriptionUriLength,
    });
    if (!parsed.ok) return of(invalidParams(scope.id, parsed.message, parsed.data));
    const stream$ = gatedStream(core, scope, honouredFilter(parsed.filter, capabilities, isServed(core)));
    return scope.mode === 'reply' ? stream$ : pushEventually(core, scope, stream$);
  };
}

export const listen: MethodHandler = listenHandler();
