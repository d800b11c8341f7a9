/**
 * Builders for subscriptions/listen tests: the modern request, the wire
 * messages the stream should carry, a filter that keeps one subscription's
 * messages out of a connection's output, and a server with a resource,
 * a resource template and a tool on a given scheduler.
 */
import { filter, type Observable, type SchedulerLike } from 'rxjs';
import { createServer, PACKAGE_VERSION, Registry, type ServerOptions, type McpServer } from '../../lib/index.js';
import type { OutboundMessage } from '../../lib/protocol/jsonrpc.js';

export type Msg = Record<string, unknown>;

export const SUB = 'io.modelcontextprotocol/subscriptionId';
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

export const listen = (id: unknown, notifications: unknown, meta: Msg = MODERN_META): Msg => ({
  jsonrpc: '2.0',
  id,
  method: 'subscriptions/listen',
  params: notifications === undefined ? { _meta: meta } : { _meta: meta, notifications },
});

export const cancelled = (requestId: unknown): Msg => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'test' },
});

export const ack = (id: unknown, notifications: Msg): Msg => ({
  jsonrpc: '2.0',
  method: 'notifications/subscriptions/acknowledged',
  params: { _meta: { [SUB]: id }, notifications },
});

export const tagged = (id: unknown, method: string, params: Msg = {}): Msg => ({
  jsonrpc: '2.0',
  method,
  params: { _meta: { [SUB]: id }, ...params },
});

export const toolsChanged = (id: unknown): Msg => tagged(id, 'notifications/tools/list_changed');
export const promptsChanged = (id: unknown): Msg => tagged(id, 'notifications/prompts/list_changed');
export const resourcesChanged = (id: unknown): Msg => tagged(id, 'notifications/resources/list_changed');
export const updated = (id: unknown, uri: string): Msg => tagged(id, 'notifications/resources/updated', { uri });

/** serverInfo as the modern encode step stamps it on every result (default name and version). */
export const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'rxmcp', version: PACKAGE_VERSION } };

export const closedResult = (id: unknown): Msg => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'complete', _meta: { [SUB]: id, ...SERVER_INFO } },
});

/** The messages of subscription `id` on a connection: those tagged with it, and the replies to it. */
export function onStream(id: unknown): (source: Observable<OutboundMessage>) => Observable<OutboundMessage> {
  return filter((message) => {
    if ('id' in message && !('method' in message)) return message.id === id;
    const meta = (message as { params?: { _meta?: Msg } }).params?._meta;
    return meta !== undefined && meta[SUB] === id;
  });
}

/** Messages tagged with any subscription id, and replies: what a modern client reads (the untagged legacy broadcasts left out). */
export function modernOnly(source: Observable<OutboundMessage>): Observable<OutboundMessage> {
  return source.pipe(
    filter((message) => {
      if (!('method' in message)) return true;
      const meta = (message as { params?: { _meta?: Msg } }).params?._meta;
      return meta !== undefined && SUB in meta;
    }),
  );
}

/** A registry with a fixed resource `mem://a`, `mem://b`, a template `mem://t/{x}` and a tool. */
export function listenRegistry(): Registry {
  return new Registry()
    .registerResource({ uri: 'mem://a', name: 'a', read: () => 'a' })
    .registerResource({ uri: 'mem://b', name: 'b', read: () => 'b' })
    .registerResourceTemplate({ uriTemplate: 'mem://t/{x}', name: 't', read: () => 't' })
    .registerTool({ name: 'echo', handler: () => 'echo' });
}

export function listenServer(scheduler: SchedulerLike, options: Omit<ServerOptions, 'scheduler'> = {}): McpServer {
  return createServer({ registry: listenRegistry(), scheduler, ...options });
}
