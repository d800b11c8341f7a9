/**
 * `rxmcp/fetch`: the HTTP transport as a web-standard fetch handler, on its
 * own entry so a Bun, Deno or edge bundle takes in neither `ws` nor the
 * node-only transports.
 *
 * @module rxmcp/fetch
 */
export { createFetchHandler } from './http/fetch-handler.js';
export type { FetchHandler, FetchHandleOptions } from './http/fetch-handler.js';
export type { HttpHandlerStats } from './http/router.js';
export type { HttpHandlerOptions } from './http/options.js';
export { InMemoryEventStore } from '../lib/ports/event-store.js';
export type { EventStore, InMemoryEventStoreOptions, Replay, StoredEvent } from '../lib/ports/event-store.js';
