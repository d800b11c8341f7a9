/**
 * firstReply's `shape` (streams/state/cancellation.ts): the first value goes out
 * shaped, as source.pipe(map(shape)) would send it; a shape that throws is
 * a failure of the source (recovered when there is a recover); a cancel
 * before the value still sends nothing, and shape never runs for it.
 */
import { Subject } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { Cancellations } from '../../streams/state/cancellation.js';
import { firstReply } from '../../streams/reply-stream.js';
import { newTestScheduler } from './harness.js';

const shape = (value: string) => `shaped ${value}`;

describe('firstReply with a shape', () => {
  test('the first value is sent shaped, then the reply completes; later values are not shaped or sent', () => {
    const calls: string[] = [];
    newTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b|');
      const reply = firstReply(source, undefined, undefined, (value: string) => {
        calls.push(value);
        return shape(value);
      });
      expectObservable(reply).toBe('-(s|)', { s: 'shaped a' });
      expectSubscriptions(source.subscriptions).toBe('^!');
    });
    expect(calls).toEqual(['a']);
  });

  test('a shape that throws is answered by recover, with what it threw, and the source is unsubscribed', () => {
    newTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('--a--b|');
      const reply = firstReply(
        source,
        undefined,
        (error) => `recovered ${(error as Error).message}`,
        () => {
          throw new Error('boom');
        },
      );
      expectObservable(reply).toBe('--(r|)', { r: 'recovered boom' });
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });

  test('a shape that throws without a recover fails the reply', () => {
    newTestScheduler().run(({ cold, expectObservable }) => {
      const reply = firstReply(cold('-a|'), undefined, undefined, () => {
        throw new Error('boom');
      });
      expectObservable(reply).toBe('-#', undefined, new Error('boom'));
    });
  });

  test('a source failing is recovered as before: recover is not shaped', () => {
    newTestScheduler().run(({ cold, expectObservable }) => {
      const reply = firstReply(cold<string>('-#', undefined, new Error('down')), undefined, () => 'recovered', shape);
      expectObservable(reply).toBe('-(r|)', { r: 'recovered' });
    });
  });

  test('cancelled before the value: nothing is sent and shape never runs', () => {
    const table = new Cancellations();
    const calls: string[] = [];
    newTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const source = cold('---a|');
      const reply = firstReply(source, { table, connId: 'c', requestId: 1 }, undefined, (value: string) => {
        calls.push(value);
        return shape(value);
      });
      hot('--x').subscribe(() => table.cancel('c', 1));
      expectObservable(reply).toBe('--|');
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
    expect(calls).toEqual([]);
  });
});

test('values pushed outside a scheduler: the first is shaped and sent, the rest dropped', () => {
  const seen: string[] = [];
  const source = new Subject<string>();
  firstReply(source, undefined, undefined, shape).subscribe((value) => seen.push(value));
  source.next('now');
  source.next('again');
  expect(seen).toEqual(['shaped now']);
});
