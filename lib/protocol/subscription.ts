/**
 * The wire names of subscriptions/listen (MCP 2026-07-28), and the mark a
 * listen stream puts on its own messages so the outbox knows they were
 * already filtered for this subscription (a tagged resources/updated must not
 * be dropped for want of a legacy resources/subscribe).
 */
import type { JsonRpcId } from './jsonrpc.js';

export const ACKNOWLEDGED_METHOD = 'notifications/subscriptions/acknowledged';
/** The `_meta` key every message of a listen stream carries: the listen request's id. */
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

const LISTEN_STREAM = Symbol.for('rxmcp.listenStream');

/** Marks `message` as belonging to the listen stream `subscriptionId` (invisible to JSON.stringify). */
export function markListenMessage<T extends object>(message: T, subscriptionId: JsonRpcId): T {
  Object.defineProperty(message, LISTEN_STREAM, { value: subscriptionId, enumerable: false });
  return message;
}

export function isListenMessage(message: object): boolean {
  return Object.hasOwn(message, LISTEN_STREAM);
}
