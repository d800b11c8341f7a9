/**
 * outbox: everything one connection receives besides its replies: its own
 * pushes and the server's broadcasts, less what it has not asked for
 * (notifications/message under its log level, resources/updated for a URI it
 * did not subscribe). A subscriptions/listen stream's messages pass as they
 * are: that stream's filter chose them.
 */
import { Observable, type Observer } from 'rxjs';
import { passesLevel } from '../lib/log-levels.js';
import type { OutboundMessage } from '../lib/protocol/jsonrpc.js';
import { isListenMessage } from '../lib/protocol/subscription.js';
import type { ConnectionState } from './state/connections.js';

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

/**
 * `merge(state.pushes, broadcasts$).pipe(filter(accepts))`, written out: a
 * stateless HTTP request is a connection of its own, so this runs once per
 * request, and two subscriptions cost less than four operator ones.
 * `wantsBroadcasts` is asked per broadcast (a connection pinned modern takes
 * none). Completes when both sources have; an error ends it.
 */
export function outbox(
  state: ConnectionState,
  broadcasts$: Observable<OutboundMessage>,
  wantsBroadcasts: () => boolean = () => true,
): Observable<OutboundMessage> {
  return new Observable<OutboundMessage>((subscriber) => {
    let open = 2;
    const done = (): void => {
      open -= 1;
      if (open === 0) subscriber.complete();
    };
    const fail = (error: unknown): void => subscriber.error(error);
    const pushes: Observer<OutboundMessage> = {
      next: (message) => {
        if (accepts(state, message)) subscriber.next(message);
      },
      error: fail,
      complete: done,
    };
    const broadcasts: Observer<OutboundMessage> = {
      next: (message) => {
        if (wantsBroadcasts() && accepts(state, message)) subscriber.next(message);
      },
      error: fail,
      complete: done,
    };
    const subscription = state.pushes.subscribe(pushes);
    subscription.add(broadcasts$.subscribe(broadcasts));
    return subscription;
  });
}
