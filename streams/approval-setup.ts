/**
 * Builds a server's MRTR approval pieces from its resolved options: the
 * counts its ParkingLot and approval ledger share, and the deps
 * issueApproval / redeemApproval take. One call each in the composition
 * root (lib/server.ts) is the whole wiring.
 */
import type { ApprovalEvent } from '../lib/events.js';
import { createKeyRing } from '../lib/mrtr/key-ring.js';
import { RequestStateCodec } from '../lib/mrtr/request-state.js';
import type { ResolvedOptions } from '../lib/options.js';
import { ApprovalCounts } from './approval-counts.js';
import { MemoryApprovalLedger, type ApprovalLedger } from './approval-ledger.js';
import type { ApprovalDeps } from './mrtr-approval.js';

/** The parking caps as one ApprovalCounts: give it to the ParkingLot (`counts`) and to approvalDeps. */
export function approvalCounts(options: ResolvedOptions): ApprovalCounts {
  return new ApprovalCounts({
    maxPerHolder: options.maxParkedElicitations,
    maxPerPeer: options.maxParkedElicitationsPerPeer,
    maxTotal: options.maxParkedElicitationsTotal,
  });
}

/**
 * The codec (key ring from `requestStateKeys`, audience `name`, cap
 * `maxRequestStateBytes`) and an in-memory ledger on `counts` (or the
 * `ledger` given, for a cluster store). Events go to `emit`; a rejected
 * requestState's reason is also logged at info (a client's bad input, not
 * a server failure, so not louder).
 */
export function approvalDeps(
  options: ResolvedOptions,
  counts: ApprovalCounts,
  emit: (event: ApprovalEvent) => void,
  ledger?: ApprovalLedger,
): ApprovalDeps {
  const report = (event: ApprovalEvent) => {
    if (event.type === 'request_state_rejected') options.logger.info(event, 'requestState refused');
    emit(event);
  };
  const ring = createKeyRing(options.requestStateKeys, options.logger);
  return {
    codec: new RequestStateCodec(ring, { audience: options.name, maxBytes: options.maxRequestStateBytes }),
    ledger: ledger ?? new MemoryApprovalLedger({ counts, scheduler: options.scheduler, ttlMs: options.approvalTtlMs, report }),
    scheduler: options.scheduler,
    report,
  };
}
