/**
 * A callback may answer with a plain value, a Promise or an Observable, so a
 * test handler can be `timer(50, scheduler)` and a production one `async`.
 */
import type { Observable } from 'rxjs';

export type CallbackReturn<T> = T | Promise<T> | Observable<T>;
