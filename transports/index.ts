/**
 * `rxmcp/transports`: stdio, Streamable HTTP with the legacy HTTP+SSE
 * transport, WebSocket, in-memory, and what a transport of your own needs
 * (`mintConnId`, the boot guards). Each turns a wire into Observables and
 * calls `server.connect`.
 *
 * @module rxmcp/transports
 */
export { connectInMemory, MemoryClientTransport } from './memory.js';
export type { MemoryConnection, MemoryConnectionOptions } from './memory.js';
export { mintConnId } from './conn-id.js';
export { serveStdio, DEFAULT_MAX_LINE_BYTES } from './stdio.js';
export type { StdioHandle, StdioOptions } from './stdio.js';
export { serveWebSocket } from './ws/serve-websocket.js';
export type { WebSocketTransport } from './ws/serve-websocket.js';
export { LOOPBACK_NAMES } from './ws/options.js';
export type { ServeWebSocketOptions, AttachWebSocketOptions, ListenWebSocketOptions } from './ws/options.js';
export { MCP_SUBPROTOCOL } from './ws/handshake.js';
export { assertAuthenticationAllowed, assertNetworkBootAllowed, authenticationRequired, authorizationRequired, isLoopbackHost } from './boot-guard.js';
export type { AuthenticationGuardOptions, BootGuardOptions, GuardedServer } from './boot-guard.js';
export type { TransportAuthOptions } from './auth-options.js';
export { createHttpHandler } from './http/handler.js';
export type { HttpHandler, NextFunction } from './http/handler.js';
export type { HttpHandlerStats } from './http/router.js';
export { createFetchHandler } from './http/fetch-handler.js';
export type { FetchHandler, FetchHandleOptions } from './http/fetch-handler.js';
export type { HttpHandlerOptions } from './http/options.js';
export { serveHttp } from './http/serve.js';
export type { HttpServerHandle, ServeHttpOptions } from './http/serve.js';
export { InMemoryEventStore } from '../lib/ports/event-store.js';
export type { EventStore, InMemoryEventStoreOptions, Replay, StoredEvent } from '../lib/ports/event-store.js';
export type { SessionDirectory, SessionRoute } from '../lib/ports/session-directory.js';
