/**
 * The content of an observable resource (`registerResource({ uri, name,
 * content$ })`): the latest value of `content$`, kept while the resource is
 * registered. A read answers that value; each value is announced (`changed`),
 * and the registry turns that into notifications/resources/updated from
 * every server it is given to.
 *
 * ```
 * content$:  ---a-----b---c---|
 * changed:   ---u-----u---u
 * a read:    (waits) a   b   c   c ...   (completing keeps the last value)
 * ```
 *
 * Bounded: one value is kept, never a history, and nothing is queued for a
 * slow reader (a read takes the value current when it runs). A read before
 * the first value waits for it, as any reader may (the server's
 * `callbackTimeoutMs` bounds the wait, and a cancelled read stops waiting).
 * `content$` failing makes reads fail from then on (logged where the
 * registry logs): content nobody keeps current is not served as if it were.
 * Completing without a value makes reads fail the same way.
 */
import { Observable, type Subscriber, type Subscription } from 'rxjs';

type State =
  | { readonly kind: 'waiting' }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'failed'; readonly error: unknown };

const WAITING: State = { kind: 'waiting' };

export class LiveContent {
  private state: State = WAITING;
  /** Reads waiting for the first value (each a read in flight, so bounded by the server's admission). */
  private readonly waiting = new Set<Subscriber<unknown>>();
  private subscription: Subscription | undefined;

  constructor(private readonly uri: string) {}

  /**
   * Subscribes to `content$`. `changed` runs after each value is current (so
   * a client told of it reads it); `failed` once if `content$` fails.
   */
  start(content$: Observable<unknown>, changed: () => void, failed: (error: unknown) => void): void {
    this.subscription = content$.subscribe({
      next: (value) => {
        this.state = { kind: 'value', value };
        for (const reader of [...this.waiting]) {
          reader.next(value);
          reader.complete();
        }
        changed();
      },
      error: (error: unknown) => {
        this.fail(error);
        failed(error);
      },
      complete: () => {
        if (this.state.kind === 'waiting') this.fail(new Error(`content$ of resource ${this.uri} completed without a value`));
      },
    });
  }

  /** The reader: the latest value, or an Observable of the first one; throws once `content$` failed. */
  read(): unknown {
    const state = this.state;
    if (state.kind === 'value') return state.value;
    if (state.kind === 'failed') throw state.error;
    return new Observable<unknown>((reader) => {
      // Settled between the read and its subscription: answer at once.
      const now = this.state;
      if (now.kind === 'value') {
        reader.next(now.value);
        reader.complete();
        return;
      }
      if (now.kind === 'failed') {
        reader.error(now.error);
        return;
      }
      this.waiting.add(reader);
      return () => this.waiting.delete(reader);
    });
  }

  /** The resource left the registry: `content$` is unsubscribed; waiting reads fail. */
  stop(): void {
    this.subscription?.unsubscribe();
    if (this.state.kind === 'waiting') this.fail(new Error(`resource ${this.uri} was unregistered before its content$ had a value`));
  }

  private fail(error: unknown): void {
    this.state = { kind: 'failed', error };
    for (const reader of [...this.waiting]) reader.error(error);
    this.waiting.clear();
  }
}
