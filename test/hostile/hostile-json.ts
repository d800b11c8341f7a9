/**
 * Hostile JSON as wire text, built by hand (JSON.stringify could not write
 * what these tests need to send), and the replies the contract promises.
 */
export const DEPTH = 10_000;

/** `[[[...]]]`, `depth` arrays deep: JSON.parse reads it; JSON.stringify of it overflows the stack. */
export function deepArrayText(depth = DEPTH): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

const INITIALIZE_PARAMS = '{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}';

/** A request whose id is `depth` arrays deep (initialize gets real params). */
export function deepIdRequest(method: string, depth = DEPTH): string {
  const params = method === 'initialize' ? `,"params":${INITIALIZE_PARAMS}` : '';
  return `{"jsonrpc":"2.0","id":${deepArrayText(depth)},"method":"${method}"${params}}`;
}

/** notifications/cancelled whose requestId is `depth` arrays deep. */
export function deepCancel(depth = DEPTH): string {
  return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${deepArrayText(depth)},"reason":"hostile"}}`;
}

export const BAD_ID_REPLY = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Invalid Request: id must be a string, a number or null' },
};

export function initializeRequest(id: string | number): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'initialize', params: JSON.parse(INITIALIZE_PARAMS) as unknown };
}

export function ping(id: string | number): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'ping' };
}

export function pong(id: string | number): Record<string, unknown> {
  return { jsonrpc: '2.0', id, result: {} };
}
