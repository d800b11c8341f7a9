/**
 * What makes a driver request a 2026-07-28 one: the `_meta` envelope on
 * every request (protocol version, client capabilities, client info), no
 * initialize. HTTP adds the standard headers (http-client.ts); a stdio
 * client opens with a `server/discover` probe, as a modern client may.
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'rxmcp-bench-driver', version: '1.0.0' },
} as const;

/** `params` with the modern envelope as its `_meta`. */
export function withModernMeta(params: unknown): Record<string, unknown> {
  const base = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  return { ...base, _meta: MODERN_META };
}

/** The envelope as JSON text, written once: a client sends the same one on every request. */
const MODERN_META_MEMBER = `"_meta":${JSON.stringify(MODERN_META)}`;

/**
 * A request's JSON text, the same bytes as JSON.stringify of
 * `{ jsonrpc, id, method, params }` (params with the modern envelope as
 * `withModernMeta` adds it, when `modern`), written around the parts that
 * never change: only the params are serialised per call. A driver that
 * serialised the whole envelope on every call spent more on each modern
 * request than the server it measures, and a client that falls behind
 * hands the server smaller batches, which costs the server more per call.
 */
export function requestText(id: number, method: string, params: unknown, modern: boolean): string {
  const head = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}`;
  if (!modern) return params === undefined ? `${head}}` : `${head},"params":${JSON.stringify(params)}}`;
  if (params === undefined) return `${head},"params":{${MODERN_META_MEMBER}}}`;
  if (typeof params !== 'object' || params === null || Object.getPrototypeOf(params) !== Object.prototype || Object.hasOwn(params, '_meta')) {
    return `${head},"params":${JSON.stringify(withModernMeta(params))}}`;
  }
  const members = JSON.stringify(params);
  return members === '{}' ? `${head},"params":{${MODERN_META_MEMBER}}}` : `${head},"params":${members.slice(0, -1)},${MODERN_META_MEMBER}}}`;
}
