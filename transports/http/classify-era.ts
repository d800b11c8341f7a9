/**
 * The era of one Streamable HTTP POST (MCP 2026-07-28 beside 2025-11-25),
 * decided once on the parsed body, before any session is looked at; the
 * headers only cross-check it. The rungs, earliest wins:
 *
 * 1. Not a request or notification (a response, an invalid body) → legacy.
 * 2. A notification: modern when it claims the modern era, or carries a
 *    modern `MCP-Protocol-Version` and no `Mcp-Session-Id` (202, dropped:
 *    the modern era defines no client notification on HTTP); else legacy.
 * 3. A request without the claim: legacy when it names a session or no
 *    modern version in its header; with a modern header, `initialize` is
 *    400/-32020 and anything else 400/-32602 naming the missing envelope.
 * 4. A request with the claim (a session header is ignored):
 *    header version ≠ claimed version → 400/-32020; the envelope's errors
 *    (-32022 for a revision we do not serve, -32602 naming the key) → 400;
 *    no `MCP-Protocol-Version`, or `Mcp-Method`/`Mcp-Name` missing or
 *    disagreeing → 400/-32020 (mcp-headers.ts); a method neither the modern
 *    table nor an extension of the server has (the removed legacy ones
 *    included) → 404/-32601; a tools/call's
 *    `Mcp-Param-*` headers against its arguments → 400/-32020; else modern.
 *
 * Every error echoes the request's id. Legacy requests go on to the session
 * code exactly as before this classifier existed.
 */
import { headerMismatch, invalidParams, methodNotFound } from '../../lib/errors.js';
import type { JsonRpcErrorResponse } from '../../lib/protocol/jsonrpc.js';
import { hasModernClaim, isModernProtocolVersion, MODERN_META, type ModernRequest } from '../../lib/protocol/modern.js';
import { isSupportedProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from '../../lib/protocol/versions.js';
import type { McpServer } from '../../streams/mcp-server.js';
import type { Classified } from '../../lib/protocol/classified.js';
import { isEnvelopeError, readEnvelope } from '../../streams/modern/envelope.js';
import { headerOf, type RequestHead } from './exchange.js';
import { checkParamHeaders, checkStandardHeaders } from './mcp-headers.js';

export type ModernClassifiedRequest = Extract<Classified, { kind: 'request' }>;

export type PostEra =
  | { readonly era: 'legacy' }
  | { readonly era: 'modern-notification' }
  | { readonly era: 'modern'; readonly request: ModernClassifiedRequest; readonly envelope: ModernRequest }
  | { readonly era: 'refused'; readonly status: 400 | 404; readonly reply: JsonRpcErrorResponse };

const LEGACY: PostEra = { era: 'legacy' };
const MODERN_NOTIFICATION: PostEra = { era: 'modern-notification' };

/** The `MCP-Protocol-Version` header, trimmed. */
export function headerVersion(req: RequestHead): string | undefined {
  return headerOf(req, 'mcp-protocol-version')?.trim();
}

function hasSession(req: RequestHead): boolean {
  return headerOf(req, 'mcp-session-id') !== undefined;
}

/**
 * What the router does with a request on the endpoint before its body is
 * read: GET/DELETE naming a modern revision and no session is 405; a POST
 * naming a revision the legacy code does not speak is left to the body
 * (a claim may make it modern); anything else goes on as before.
 */
export function modernEdge(req: RequestHead): 'method-not-allowed' | 'post-decides' | undefined {
  const version = headerVersion(req);
  if (version === undefined || isSupportedProtocolVersion(version)) return undefined;
  const method = req.method ?? 'GET';
  if (method === 'POST') return 'post-decides';
  if ((method === 'GET' || method === 'DELETE') && isModernProtocolVersion(version) && !hasSession(req)) return 'method-not-allowed';
  return undefined;
}

/** The refusal of a revision the legacy code does not speak: by the router before any body, and for a POST the body left legacy. */
export function legacyVersionRefusal(req: RequestHead): string | undefined {
  const value = req.headers['mcp-protocol-version'];
  if (value === undefined) return undefined;
  const version = Array.isArray(value) ? value[0] : value;
  if (isSupportedProtocolVersion(version)) return undefined;
  return `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
}

function refused(status: 400 | 404, reply: JsonRpcErrorResponse): PostEra {
  return { era: 'refused', status, reply };
}

function claimlessRequest(req: RequestHead, request: ModernClassifiedRequest): PostEra {
  if (hasSession(req) || !isModernProtocolVersion(headerVersion(req))) return LEGACY;
  if (request.method === 'initialize') {
    return refused(400, headerMismatch(request.id, 'MCP-Protocol-Version names a modern revision, but initialize is the legacy handshake'));
  }
  const meta = request.params?._meta;
  const missing = [MODERN_META.protocolVersion, MODERN_META.clientCapabilities].filter(
    (key) => !(typeof meta === 'object' && meta !== null && Object.hasOwn(meta, key)),
  );
  const key = MODERN_META.protocolVersion;
  return refused(
    400,
    invalidParams(request.id, `Invalid params: _meta["${key}"] is required (MCP-Protocol-Version names a modern revision)`, { key, envelope: { missing } }),
  );
}

function claimingRequest(server: McpServer, req: RequestHead, request: ModernClassifiedRequest): PostEra {
  const { id, method, params } = request;
  const claimed = (params?._meta as Record<string, unknown>)[MODERN_META.protocolVersion];
  const version = headerVersion(req);
  if (typeof claimed === 'string' && version !== undefined && version !== claimed) {
    return refused(400, headerMismatch(id, `MCP-Protocol-Version ${JSON.stringify(version)} does not match _meta's ${JSON.stringify(claimed)}`));
  }
  const envelope = readEnvelope(id, params);
  if (isEnvelopeError(envelope)) return refused(400, envelope);
  if (version === undefined) return refused(400, headerMismatch(id, 'the MCP-Protocol-Version header is required'));
  const standard = checkStandardHeaders(req, method, params);
  if (standard !== null) return refused(400, headerMismatch(id, standard));
  if (!server.servesModernMethod(method)) return refused(404, methodNotFound(id, method));
  if (method === 'tools/call' && typeof params?.name === 'string') {
    const schema = server.registry.toolSchemas(params.name)?.json.input;
    const custom = schema === undefined ? null : checkParamHeaders(req, schema, params.arguments);
    if (custom !== null) return refused(400, headerMismatch(id, custom));
  }
  return { era: 'modern', request, envelope };
}

export function classifyPostEra(server: McpServer, req: RequestHead, message: Classified): PostEra {
  switch (message.kind) {
    case 'notification': {
      if (hasModernClaim(message.params)) return MODERN_NOTIFICATION;
      return !hasSession(req) && isModernProtocolVersion(headerVersion(req)) ? MODERN_NOTIFICATION : LEGACY;
    }
    case 'request':
      return hasModernClaim(message.params) ? claimingRequest(server, req, message) : claimlessRequest(req, message);
    default:
      return LEGACY;
  }
}
