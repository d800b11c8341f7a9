/**
 * cancellationOf: emits when the client sends notifications/cancelled for
 * this request on this connection. Cancelling is unsubscribing the call's
 * Observable, so the handler's signal aborts and no reply goes out.
 */
import { filter, take, type Observable } from 'rxjs';
import type { RequestScope, ServerCore } from './server-core.js';

export function cancellationOf(core: ServerCore, scope: RequestScope): Observable<unknown> {
  return core.cancellations.pipe(
    filter((c) => c.connId === scope.connId && c.requestId === scope.id),
    take(1),
  );
}
