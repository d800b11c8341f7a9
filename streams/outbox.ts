/**
 * outbox: everything one connection receives besides its replies: its own
 * pushes and the server's broadcasts, less what it has not asked for
 * (notifications/message under its log level, resources/updated for a URI it
 * did not subscribe). A subscriptions/listen stream's messages pass as they
 * are: that stream's filter chose them.
 */
import { filter, merge, type Observable } from 'rxjs';
import { passesLevel } from '../lib/log-levels.js';
import type { OutboundMessage } from '../lib/protocol/jsonrpc.js';
import { isListenMessage } from '../lib/protocol/subscription.js';
import type { ConnectionState } from './connections.js';

export function accepts(state: ConnectionState, message: OutboundMessage): boolean {
  if (!('method' in message) || 'id' in message) return true;
  if (message.method === 'notifications/message') return passesLevel(message.params?.level, state.logLevel);
  if (message.method === 'notifications/resources/updated') {
    // A listen stream's was filtered for its subscription already.
    if (isListenMessage(message)) return true;
    const uri = message.params?.uri;
    return typeof uri === 'string' && state.resourceSubscriptions.has(uri);
  }
  return true;
}

export function outbox(state: ConnectionState, broadcasts$: Observable<OutboundMessage>): Observable<OutboundMessage> {
  return merge(state.pushes, broadcasts$).pipe(filter((message) => accepts(state, message)));
}
