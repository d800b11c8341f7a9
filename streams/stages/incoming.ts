/**
 * Incoming: one inbound message on its way through the connection's stages
 * (connection.ts), filled in stage by stage: who sent it (authenticate), what
 * it is (classifyEnvelope), under which era (decideEra). One object per
 * message however many stages read it: a message is not copied at each step.
 */
import type { Classified, Decided } from '../../lib/protocol/classified.js';
import type { Origin } from '../state/server-core.js';
import { Observable, type Observer, type OperatorFunction, type Subscriber } from 'rxjs';

export class Incoming {
  classified: Classified | undefined = undefined;
  decided: Decided | undefined = undefined;

  constructor(
    readonly message: unknown,
    /** The connection's origin, or a message's own principal on it (authenticate). */
    readonly origin: Origin,
  ) {}
}

/**
 * perMessage: the shape every stage of the spine shares. `step` reads one
 * value and returns what goes on, or `undefined` for nothing (a message that
 * is dropped, or answered without a reply). Errors and completion pass
 * through; unsubscribing unsubscribes the source.
 *
 * `step` must not throw: each stage turns a failure into the reply its
 * message earns (pipeline-failure.ts), so one bad message never ends the
 * connection. A throw anyway is contained to its message: logged by
 * `onThrow`, and the stream goes on.
 *
 * Stages in a row fuse: a perMessage stage applied to another's result
 * subscribes to that one's source with the two steps composed. What comes
 * out is what the unfused stages give, message for message; what a
 * connection holds is one subscriber for all the spine's stages instead of
 * one (with its observer and closures) per stage: a server may hold ten
 * thousand idle WebSocket connections (bench: ws-idle-10k).
 *
 * ```
 * source:  --a--b--c--|
 * step:    a -> A, b -> undefined, c -> C
 * result:  --A-----C--|
 * ```
 */
export function perMessage<A, B>(step: (value: A) => B | undefined, onThrow: (error: unknown) => void): OperatorFunction<A, B> {
  const contained = (value: A): B | undefined => {
    try {
      return step(value);
    } catch (error) {
      onThrow(error);
      return undefined;
    }
  };
  return (source) => {
    const earlier = steppedOf(source);
    if (earlier === undefined) return stepped(source, contained);
    const first = earlier.step as (value: unknown) => A | undefined;
    return stepped(earlier.source, (value: unknown): B | undefined => {
      const between = first(value);
      return between === undefined ? undefined : contained(between);
    });
  };
}

/** What a perMessage stage's result is made of: the source it reads and its (composed) step. */
interface Stepped {
  readonly source: Observable<unknown>;
  readonly step: (value: unknown) => unknown;
}

/** Where a stage's result keeps its Stepped: a symbol of ours on an Observable of RxJS's making (its public API only). */
const STEPPED = Symbol('rxmcp.perMessage');

function steppedOf(source: Observable<unknown>): Stepped | undefined {
  return (source as Observable<unknown> & { [STEPPED]?: Stepped })[STEPPED];
}

/** One object per subscription, for the step's output: no closures per connection. */
class StepObserver<A, B> implements Observer<A> {
  constructor(
    private readonly subscriber: Subscriber<B>,
    private readonly step: (value: A) => B | undefined,
  ) {}

  next(value: A): void {
    const out = this.step(value);
    if (out !== undefined) this.subscriber.next(out);
  }

  error(error: unknown): void {
    this.subscriber.error(error);
  }

  complete(): void {
    this.subscriber.complete();
  }
}

function stepped<A, B>(source: Observable<A>, step: (value: A) => B | undefined): Observable<B> {
  const result = new Observable<B>((subscriber) => source.subscribe(new StepObserver(subscriber, step)));
  const made: Stepped = { source: source as Observable<unknown>, step: step as (value: unknown) => unknown };
  return Object.assign(result, { [STEPPED]: made });
}
