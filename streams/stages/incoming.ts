/**
 * Incoming: one inbound message on its way through the connection's stages
 * (connection.ts), filled in stage by stage: who sent it (authenticate), what
 * it is (classifyEnvelope), under which era (decideEra). One object per
 * message however many stages read it: a message is not copied at each step.
 */
import type { Classified, Decided } from '../../lib/protocol/classified.js';
import type { Origin } from '../state/server-core.js';

export class Incoming {
  classified: Classified | undefined = undefined;
  decided: Decided | undefined = undefined;

  constructor(
    readonly message: unknown,
    /** The connection's origin, or a message's own principal on it (authenticate). */
    readonly origin: Origin,
  ) {}
}
