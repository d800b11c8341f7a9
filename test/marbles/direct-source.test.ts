/**
 * DirectSource's interop (streams/reply-stream.ts): anything outside our
 * own consumers reads a DirectSource with RxJS's public API, `from(source)`
 * (its `Symbol.observable` method) or `source.subscribe(...)`, and sees what
 * the source does: its values, its end, its error; unsubscribing tears the
 * source down once; a throw while opening is an error, not a throw.
 *
 *   source    -a-b|       from(source)  -a-b|
 *   source    -a#         from(source)  -a#
 *   source    -a--b|      from(source), unsubscribed at 3: -a-  (torn down once)
 *   open throws           from(source)  #
 */
import { Observable, Subject, from, observable, race, switchMap, of, type Unsubscribable } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { asObservable, DirectSource, isReplyStream, openSource, type DirectObserver } from '../../streams/reply-stream.js';
import { newTestScheduler } from './harness.js';

/** Relays `inner`, counting its openings and teardowns. */
class Relay<T> extends DirectSource<T> {
  opened = 0;
  tornDown = 0;
  observers: DirectObserver<T>[] = [];

  constructor(private readonly inner: Observable<T>) {
    super();
  }

  open(observer: DirectObserver<T>): Unsubscribable {
    this.opened += 1;
    this.observers.push(observer);
    const subscription = this.inner.subscribe(observer);
    return {
      unsubscribe: () => {
        this.tornDown += 1;
        subscription.unsubscribe();
      },
    };
  }
}

class ThrowsWhileOpening extends DirectSource<string> {
  open(): Unsubscribable {
    throw new Error('boom');
  }
}

describe('DirectSource through from()', () => {
  test('emits and completes as the source does, and is torn down once at the end', () => {
    const relays: Relay<string>[] = [];
    newTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const inner = cold('-a-b|');
      const relay = new Relay(inner);
      relays.push(relay);
      expectObservable(from(relay)).toBe('-a-b|');
      expectSubscriptions(inner.subscriptions).toBe('^---!');
    });
    expect(relays[0]!.opened).toBe(1);
    expect(relays[0]!.tornDown).toBe(1);
  });

  test('fails as the source does', () => {
    newTestScheduler().run(({ cold, expectObservable }) => {
      const relay = new Relay(cold('-a#', undefined, new Error('down')));
      expectObservable(from(relay)).toBe('-a#', undefined, new Error('down'));
    });
  });

  test('unsubscribing tears the source down, once', () => {
    const relays: Relay<string>[] = [];
    newTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const inner = cold('-a--b|');
      const relay = new Relay(inner);
      relays.push(relay);
      expectObservable(from(relay), '^--!').toBe('-a-');
      expectSubscriptions(inner.subscriptions).toBe('^--!');
    });
    expect(relays[0]!.tornDown).toBe(1);
  });

  test('a throw while opening is the error', () => {
    newTestScheduler().run(({ expectObservable }) => {
      expectObservable(from(new ThrowsWhileOpening())).toBe('#', undefined, new Error('boom'));
    });
  });

  test('each subscription opens the source anew', () => {
    newTestScheduler().run(({ cold, expectObservable }) => {
      const relay = new Relay(cold('-a|'));
      const shared$ = from(relay);
      expectObservable(shared$).toBe('-a|');
      expectObservable(shared$).toBe('-a|');
    });
  });

  test('operators take it as an ObservableInput (race, switchMap)', () => {
    newTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(race(new Relay(cold('-a|')), cold('--b|'))).toBe('-a|');
      expectObservable(of(1).pipe(switchMap(() => new Relay(cold('-a|'))))).toBe('-a|');
    });
  });
});

describe('DirectSource.subscribe', () => {
  test('takes a function or a partial observer, and its Subscription tears the source down once', () => {
    const inner = new Subject<string>();
    const relay = new Relay(inner);
    const seen: string[] = [];
    const subscription = relay.subscribe((value) => seen.push(value));
    inner.next('a');
    subscription.unsubscribe();
    subscription.unsubscribe();
    inner.next('b');
    expect(seen).toEqual(['a']);
    expect(relay.tornDown).toBe(1);

    let completed = false;
    relay.subscribe({ complete: () => (completed = true) });
    inner.complete();
    expect(completed).toBe(true);
    expect(relay.opened).toBe(2);
  });

  test('a throw while opening reaches the error callback, not the caller', () => {
    let failure: unknown;
    expect(() => new ThrowsWhileOpening().subscribe({ error: (error: unknown) => (failure = error) })).not.toThrow();
    expect(failure).toEqual(new Error('boom'));
  });

  test('goes through a real Subscriber: nothing after the end reaches the observer', () => {
    const inner = new Subject<string>();
    const relay = new Relay(inner);
    const seen: string[] = [];
    relay.subscribe({ next: (value) => seen.push(value), complete: () => seen.push('|') });
    const opener = relay.observers[0]!;
    opener.next('a');
    opener.complete();
    opener.next('late');
    expect(seen).toEqual(['a', '|']);
  });
});

describe('the helpers', () => {
  test('the interop method returns a real Observable; asObservable too, and an Observable as itself', () => {
    const relay = new Relay(of('a'));
    const viaInterop = (relay as unknown as Record<string | symbol, () => unknown>)[observable]!();
    expect(viaInterop).toBeInstanceOf(Observable);
    expect(asObservable(relay)).toBeInstanceOf(Observable);
    const plain$ = of('a');
    expect(asObservable(plain$)).toBe(plain$);
  });

  test('isReplyStream: an Observable or a DirectSource, nothing else', () => {
    expect(isReplyStream(of(1))).toBe(true);
    expect(isReplyStream(new Relay(of(1)))).toBe(true);
    expect(isReplyStream(Promise.resolve(1))).toBe(false);
    expect(isReplyStream({ subscribe() {} })).toBe(false);
  });

  test('openSource hands a DirectSource our observer itself (no Subscriber in between) and subscribes an Observable', () => {
    const relay = new Relay(of('a'));
    const seen: string[] = [];
    const observer: DirectObserver<string> = { next: (value) => seen.push(value), error: () => seen.push('#'), complete: () => seen.push('|') };
    openSource(relay, observer);
    expect(relay.observers[0]).toBe(observer);
    openSource(of('b'), observer);
    expect(seen).toEqual(['a', '|', 'b', '|']);
  });
});
