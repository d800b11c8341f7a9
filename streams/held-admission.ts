/**
 * HeldAdmission: a worker's admission (its local slot and, with a
 * PermitPool, its permit) carried past that worker's end by the step its
 * reply starts, and given back exactly once by whoever ends last.
 *
 * Why: an MRTR retry's worker runs the authorizer; when that asks, the
 * retry takes its approval ticket in the ledger and, approved, runs the
 * tool. Were the worker's slot and permit given back before the take and
 * asked for again for the run, another call of the same caller (most often
 * a concurrent retry of the same ticket) could take them in between: the
 * ticket would be spent and its run refused. Held across verdict, take and
 * run, a spent ticket always has its permit (modern/input-needed.ts keeps
 * it; worker.ts hands it over and runs under it).
 */
import type { Unsubscribable } from 'rxjs';
import type { ConnId } from '../lib/context.js';
import type { Admission } from './state/admission.js';

export class HeldAdmission implements Unsubscribable {
  private held = true;

  constructor(
    private readonly admission: Admission,
    private readonly connId: ConnId,
    private readonly peer: string,
    /** The permit's subscription (unsubscribing releases it); undefined without a pool. */
    private readonly permit: Unsubscribable | undefined,
  ) {}

  /** Given back already: a run may no longer start under it. */
  get closed(): boolean {
    return !this.held;
  }

  /** Gives back the slot and the permit; only the first call does anything. */
  unsubscribe(): void {
    if (!this.held) return;
    this.held = false;
    this.admission.release(this.connId, this.peer);
    this.permit?.unsubscribe();
  }
}

/** What a worker's reply may do with the admission its run holds (see WorkerSource.reply). */
export interface AdmissionKeeper {
  /** Takes the admission over: the worker then does not give it back, the caller (or a run it starts with it) does. */
  keep(): HeldAdmission;
}
