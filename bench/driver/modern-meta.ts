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
