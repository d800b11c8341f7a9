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

/**
 * The same envelope without the claim: its protocol-version key misspelt by
 * one letter (same length), so a legacy connection takes it as an ordinary
 * `_meta` and the request is byte for byte as long as a modern one.
 */
const SIZED_META = {
  'io.modelcontextprotocol/protocolVersioN': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'rxmcp-bench-driver', version: '1.0.0' },
} as const;

/** Which envelope a driver's requests carry: none (legacy), the modern one, or the modern-sized control. */
export type Envelope = 'none' | 'modern' | 'sized';

/** The envelope as JSON text, written once: a client sends the same one on every request. */
const META_MEMBERS: Record<Exclude<Envelope, 'none'>, string> = {
  modern: `"_meta":${JSON.stringify(MODERN_META)}`,
  sized: `"_meta":${JSON.stringify(SIZED_META)}`,
};
const META_OBJECTS = { modern: MODERN_META, sized: SIZED_META } as const;

/**
 * A request's JSON text, the same bytes as JSON.stringify of
 * `{ jsonrpc, id, method, params }` (params with the envelope as its
 * `_meta`, replacing any, as `withModernMeta` does, unless `envelope` is
 * 'none'), written around the parts that never change: only the params are
 * serialised per call. A driver that serialised the whole envelope on every
 * call spent more on each modern request than the server it measures, and a
 * client that falls behind hands the server smaller batches, which costs
 * the server more per call.
 */
export function requestText(id: number, method: string, params: unknown, envelope: Envelope): string {
  const head = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}`;
  if (envelope === 'none') return params === undefined ? `${head}}` : `${head},"params":${JSON.stringify(params)}}`;
  const member = META_MEMBERS[envelope];
  if (params === undefined) return `${head},"params":{${member}}}`;
  if (typeof params !== 'object' || params === null || Object.getPrototypeOf(params) !== Object.prototype || Object.hasOwn(params, '_meta')) {
    const base = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
    return `${head},"params":${JSON.stringify({ ...base, _meta: META_OBJECTS[envelope] })}}`;
  }
  const members = JSON.stringify(params);
  return members === '{}' ? `${head},"params":{${member}}}` : `${head},"params":${members.slice(0, -1)},${member}}}`;
}
