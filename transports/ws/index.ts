export { serveWebSocket } from './serve-websocket.js';
export type { WebSocketTransport } from './serve-websocket.js';
export type { AttachWebSocketOptions, ListenWebSocketOptions, ServeWebSocketOptions } from './options.js';
export { LOOPBACK_NAMES } from './options.js';
export { MCP_SUBPROTOCOL } from './handshake.js';
