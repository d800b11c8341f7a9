/**
 * readEnvelope: a modern request's `params._meta`, validated into a
 * ModernRequest, or the error it earns. Called only for a request that makes
 * the modern claim; nothing about the client is remembered past the request.
 *
 * In order:
 * - `io.modelcontextprotocol/protocolVersion` not a string: -32602;
 * - a revision this server does not serve (a legacy one included): -32022,
 *   `data: { supported, requested }`, supported = the modern list only;
 * - `io.modelcontextprotocol/clientCapabilities` missing, not an object, a
 *   known capability that is not an object, or bigger than
 *   MAX_CLIENT_CAPABILITIES_BYTES once parsed: -32602;
 * - `io.modelcontextprotocol/clientInfo` present but not `{ name, version }`
 *   strings: -32602 (it is optional, never required);
 * - `io.modelcontextprotocol/logLevel` present but not a level: -32602.
 * Every -32602 names the key, in `data.key` too.
 */
import { invalidParams, unsupportedProtocolVersion } from '../../lib/errors.js';
import { isLogLevel } from '../../lib/log-levels.js';
import { isPlainObject, type JsonRpcErrorResponse, type JsonRpcId } from '../../lib/protocol/jsonrpc.js';
import { isModernProtocolVersion, MODERN_META, MODERN_PROTOCOL_VERSIONS, type ModernClientInfo, type ModernRequest } from '../../lib/protocol/modern.js';
import { retainedSize } from '../../lib/retained-size.js';

/** Estimated heap bytes a request's clientCapabilities may hold: real ones are a few hundred. */
export const MAX_CLIENT_CAPABILITIES_BYTES = 64 * 1024;

/** The ClientCapabilities members 2026-07-28 defines; each, when present, is an object. */
const OBJECT_CAPABILITIES = ['experimental', 'roots', 'sampling', 'elicitation', 'extensions'] as const;

function malformed(id: JsonRpcId, key: string, problem: string): JsonRpcErrorResponse {
  return invalidParams(id, `Invalid params: _meta["${key}"] ${problem}`, { key });
}

function capabilitiesProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return value === undefined ? 'is required' : 'must be an object';
  for (const name of OBJECT_CAPABILITIES) {
    if (value[name] !== undefined && !isPlainObject(value[name])) return `.${name} must be an object`;
  }
  if (retainedSize(value, MAX_CLIENT_CAPABILITIES_BYTES) > MAX_CLIENT_CAPABILITIES_BYTES) {
    return `is too large (over ${MAX_CLIENT_CAPABILITIES_BYTES} bytes once parsed)`;
  }
  return null;
}

function readClientInfo(value: unknown): ModernClientInfo | null {
  if (!isPlainObject(value) || typeof value.name !== 'string' || typeof value.version !== 'string') return null;
  return { name: value.name, version: value.version };
}

/** The validated envelope of a request that claims the modern era, or its error reply. */
export function readEnvelope(id: JsonRpcId, params: Record<string, unknown> | undefined): ModernRequest | JsonRpcErrorResponse {
  const meta = isPlainObject(params?._meta) ? params._meta : {};
  const version = meta[MODERN_META.protocolVersion];
  if (typeof version !== 'string') return malformed(id, MODERN_META.protocolVersion, version === undefined ? 'is required' : 'must be a string');
  if (!isModernProtocolVersion(version)) return unsupportedProtocolVersion(id, MODERN_PROTOCOL_VERSIONS, version);

  const capabilities = meta[MODERN_META.clientCapabilities];
  const problem = capabilitiesProblem(capabilities);
  if (problem !== null) return malformed(id, MODERN_META.clientCapabilities, problem);

  let clientInfo: ModernClientInfo | undefined;
  const info = meta[MODERN_META.clientInfo];
  if (info !== undefined) {
    const read = readClientInfo(info);
    if (read === null) return malformed(id, MODERN_META.clientInfo, 'must be an object with string name and version');
    clientInfo = read;
  }
  const logLevel = meta[MODERN_META.logLevel];
  if (logLevel !== undefined && !isLogLevel(logLevel)) return malformed(id, MODERN_META.logLevel, 'is not a log level');

  const modern: { -readonly [K in keyof ModernRequest]: ModernRequest[K] } = {
    protocolVersion: version,
    clientCapabilities: capabilities as Record<string, unknown>,
  };
  if (clientInfo !== undefined) modern.clientInfo = clientInfo;
  if (logLevel !== undefined) modern.logLevel = logLevel;
  return modern;
}

/**
 * readEnvelope for one connection whose requests repeat the same envelope
 * (a stdio or WebSocket client sends the same `_meta` on every request):
 * when the version, the client info and the log level equal the previous
 * valid envelope's and the capabilities are an empty object, the checks
 * are skipped (those values passed them already; an empty object has
 * nothing to walk). The ModernRequest is still this request's own, made of
 * what it sent, exactly as readEnvelope makes it. Anything else is read in
 * full, and remembered when valid. One `_meta` object given again, frozen
 * through and through (the stdio and WebSocket parser shares a repeated
 * envelope that way), gets the same frozen ModernRequest again.
 */
export class EnvelopeReader {
  #last: ModernRequest | undefined;
  /** The frozen `_meta` `#shared` was read from, when it was one; `#shared` is then frozen too. */
  #frozenMeta: object | undefined;
  #shared: ModernRequest | undefined;

  read(id: JsonRpcId, params: Record<string, unknown> | undefined): ModernRequest | JsonRpcErrorResponse {
    const last = this.#last;
    const meta = params?._meta;
    if (last !== undefined && isPlainObject(meta)) {
      if (meta === this.#frozenMeta) return this.#shared!;
      const repeated = repeatOf(last, meta);
      if (repeated !== undefined) return this.#remember(meta, repeated);
    }
    const read = readEnvelope(id, params);
    if (!isEnvelopeError(read)) {
      this.#last = read;
      if (isPlainObject(meta)) return this.#remember(meta, read);
    }
    return read;
  }

  /**
   * A connection's repeated envelope arrives as one frozen object when the
   * transport's parser shares it (transports/repeated-envelope.ts): nothing
   * read from it can change, so its ModernRequest is frozen and given again.
   */
  #remember(meta: Record<string, unknown>, request: ModernRequest): ModernRequest {
    if (!isFrozenEnvelope(meta)) return request;
    if (request.clientInfo !== undefined) Object.freeze(request.clientInfo);
    this.#frozenMeta = meta;
    this.#shared = Object.freeze(request);
    return request;
  }
}

/** Frozen, and so is every object in it that readEnvelope reads (client info, capabilities and their members). */
function isFrozenEnvelope(meta: Record<string, unknown>): boolean {
  if (!Object.isFrozen(meta)) return false;
  const info = meta[MODERN_META.clientInfo];
  const capabilities = meta[MODERN_META.clientCapabilities];
  return (typeof info !== 'object' || info === null || Object.isFrozen(info)) && isDeepFrozen(capabilities);
}

/** Without recursion: how deep capabilities go is the client's choice. */
function isDeepFrozen(root: unknown): boolean {
  const pending: object[] = [];
  if (typeof root === 'object' && root !== null) pending.push(root);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (!Object.isFrozen(next)) return false;
    for (const member of Object.values(next)) if (typeof member === 'object' && member !== null) pending.push(member);
  }
  return true;
}

/** This envelope as readEnvelope would return it, when it repeats `last`'s values with empty capabilities; else undefined. */
function repeatOf(last: ModernRequest, meta: Record<string, unknown>): ModernRequest | undefined {
  const version = meta[MODERN_META.protocolVersion];
  const logLevel = meta[MODERN_META.logLevel];
  if (version !== last.protocolVersion || logLevel !== last.logLevel) return undefined;
  const capabilities = meta[MODERN_META.clientCapabilities];
  if (!isPlainObject(capabilities) || !hasNoMembers(capabilities)) return undefined;
  const info = meta[MODERN_META.clientInfo];
  const known = last.clientInfo;
  const modern: { -readonly [K in keyof ModernRequest]: ModernRequest[K] } = { protocolVersion: last.protocolVersion, clientCapabilities: capabilities };
  if (known === undefined) {
    if (info !== undefined) return undefined;
  } else {
    if (!isPlainObject(info) || info.name !== known.name || info.version !== known.version) return undefined;
    modern.clientInfo = { name: known.name, version: known.version };
  }
  if (logLevel !== undefined) modern.logLevel = last.logLevel;
  return modern;
}

function hasNoMembers(value: Readonly<Record<string, unknown>>): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

export function isEnvelopeError(value: ModernRequest | JsonRpcErrorResponse): value is JsonRpcErrorResponse {
  return 'error' in value;
}
