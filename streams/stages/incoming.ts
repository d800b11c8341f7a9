/**
 * Incoming: one inbound message on its way through the connection's stages
 * (connection.ts), filled in stage by stage: who sent it (authenticate), what
 * it is (classifyEnvelope), under which era (decideEra). One object per
 * message however many stages read it: a message is not copied at each step.
 */
import type { Classified, Decided } from '../../lib/protocol/classified.js';
import type { Origin } from '../state/server-core.js';
import { Observable, type OperatorFunction } from 'rxjs';

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
 * ```
 * source:  --a--b--c--|
 * step:    a -> A, b -> undefined, c -> C
 * result:  --A-----C--|
 * ```
 */
export function perMessage<A, B>(step: (value: A) => B | undefined, onThrow: (error: unknown) => void): OperatorFunction<A, B> {
  return (source) =>
    new Observable<B>((subscriber) =>
      source.subscribe({
        next(value) {
          let out: B | undefined;
          try {
            out = step(value);
          } catch (error) {
            onThrow(error);
            return;
          }
          if (out !== undefined) subscriber.next(out);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
}
