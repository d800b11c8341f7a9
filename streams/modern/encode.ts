/**
 * encodeModernReply: the modern wire's shape of a reply, in one step for
 * every modern request, so no method handler knows which era it serves.
 *
 * Results:
 * - `resultType` on every result: the handler's own when it is one the core
 *   defines (`complete`, `input_required`), else `complete`;
 * - `_meta["io.modelcontextprotocol/serverInfo"]` on every result (the
 *   result's own `_meta` kept);
 * - `ttlMs` and `cacheScope` on the complete results of the six cacheable
 *   methods (the cacheHints option), `private` whenever the result was
 *   decided for this caller: tools/list under a tool authorizer (it lists
 *   what the caller may call), anything under a read authorizer (the caller
 *   was let through), anything an authenticated caller gets (declared
 *   `requiredScopes` filter lists and reads by the principal). A retry that
 *   carried `inputResponses` or
 *   `requestState` gets `{ ttlMs: 0, cacheScope: 'private' }` (its result
 *   depends on what the cache key does not hold).
 *
 * Errors: the read deny -32090 sits in the range 2026-07-28 reserves, so it
 * goes out as -31090 (same message and data); an unknown tool is -32602 as
 * the modern tools page says (the seed's -32601 stays on legacy).
 */
import { AUTHORIZATION_REQUIRED, AUTHORIZATION_REQUIRED_MODERN, INVALID_PARAMS, METHOD_NOT_FOUND } from '../../lib/errors.js';
import { DEFAULT_CACHE_HINT, isCacheableMethod, type CacheHint, type CacheableMethod } from '../../lib/cache-hints.js';
import { errorResponse, isPlainObject, resultResponse, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import { frame, FramedResult } from '../../lib/protocol/encode.js';
import { MODERN_META } from '../../lib/protocol/modern.js';
import type { RequestScope, ServerCore } from '../state/server-core.js';
import { isCreateTaskResult } from '../tasks/task-wire.js';

/** The resultType values the core defines; an extension's would be added here when advertised. */
const RESULT_TYPES: ReadonlySet<unknown> = new Set(['complete', 'input_required']);

/** Error codes that differ on the modern wire: any method, then per method. */
const MODERN_CODES: ReadonlyMap<number, number> = new Map([[AUTHORIZATION_REQUIRED, AUTHORIZATION_REQUIRED_MODERN]]);
const MODERN_CODES_BY_METHOD: Readonly<Record<string, ReadonlyMap<number, number>>> = {
  'tools/call': new Map([[METHOD_NOT_FOUND, INVALID_PARAMS]]),
};

function modernCode(method: string, code: number): number {
  return MODERN_CODES_BY_METHOD[method]?.get(code) ?? MODERN_CODES.get(code) ?? code;
}

function cacheHint(core: ServerCore, scope: RequestScope, method: CacheableMethod): CacheHint {
  const params = scope.params;
  if (params !== undefined && (params.inputResponses !== undefined || params.requestState !== undefined)) return DEFAULT_CACHE_HINT;
  const hint = core.options.cacheHints[method];
  const perCaller =
    (method === 'tools/list' && core.options.authorizer !== null) ||
    (method !== 'server/discover' && (core.options.readAuthorizer !== null || scope.principal !== undefined));
  return perCaller && hint.cacheScope !== 'private' ? { ttlMs: hint.ttlMs, cacheScope: 'private' } : hint;
}

const COMPLETE_HEAD = '"resultType":"complete"';

/** What a framed complete result of a server has besides the handler's members, made once per server. */
interface CompleteFrame {
  readonly tail: string;
  /** `{ resultType: 'complete', _meta }`, frozen; its `_meta` is shared by the server's framed results. */
  readonly fixed: Readonly<{ resultType: 'complete'; _meta: Readonly<Record<string, unknown>> }>;
}

const completeFrames = new WeakMap<ServerCore, CompleteFrame>();

function completeFrameOf(core: ServerCore): CompleteFrame {
  let made = completeFrames.get(core);
  if (made === undefined) {
    const info = Object.freeze({ name: core.options.name, version: core.options.serverVersion });
    const meta = Object.freeze({ [MODERN_META.serverInfo]: info });
    made = { tail: `"_meta":${JSON.stringify(meta)}`, fixed: Object.freeze({ resultType: 'complete' as const, _meta: meta }) };
    completeFrames.set(core, made);
  }
  return made;
}

/**
 * Whether the stamped result is, as JSON, `resultType` first, the result's
 * own members, then the server's `_meta`: a plain result with neither of
 * those keys nor a toJSON of its own (so JSON.stringify of it writes what
 * the spread copied), and no cache hint added between them.
 */
function isFrameable(result: Record<string, unknown>, hinted: boolean): boolean {
  return (
    !hinted &&
    Object.getPrototypeOf(result) === Object.prototype &&
    !Object.hasOwn(result, 'resultType') &&
    !Object.hasOwn(result, '_meta') &&
    !Object.hasOwn(result, 'toJSON')
  );
}

export function encodeModernReply(core: ServerCore, scope: RequestScope, reply: JsonRpcResponse | null): JsonRpcResponse | null {
  if (reply === null) return null;
  if ('error' in reply) {
    const code = modernCode(scope.method, reply.error.code);
    return code === reply.error.code ? reply : errorResponse(reply.id, { ...reply.error, code });
  }
  const result = reply.result;
  if (!isPlainObject(result)) return reply;
  // "task" only on the CreateTaskResult the tasks code made (a handler cannot forge one).
  const resultType = RESULT_TYPES.has(result.resultType) || isCreateTaskResult(result) ? (result.resultType as string) : 'complete';
  const stamped: Record<string, unknown> = { resultType, ...result };
  stamped.resultType = resultType;
  const hinted = resultType === 'complete' && isCacheableMethod(scope.method);
  if (hinted) {
    const hint = cacheHint(core, scope, scope.method);
    stamped.ttlMs = hint.ttlMs;
    stamped.cacheScope = hint.cacheScope;
  }
  if (resultType === 'complete' && isFrameable(result, hinted)) {
    // The common case, framed: the transport writes the fixed members as text (below).
    const { tail, fixed } = completeFrameOf(core);
    stamped._meta = fixed._meta;
    frame(new FramedResult(stamped, COMPLETE_HEAD, result, tail, fixed));
    return resultResponse(reply.id, stamped);
  }
  const meta = isPlainObject(result._meta) ? result._meta : {};
  stamped._meta = { ...meta, [MODERN_META.serverInfo]: { name: core.options.name, version: core.options.serverVersion } };
  return resultResponse(reply.id, stamped);
}
