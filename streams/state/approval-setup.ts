/**
 * Builds a server's MRTR approval pieces from its resolved options: the
 * counts its ParkingLot and approval ledger share, and the deps
 * issueApproval / redeemApproval take. One call each in the composition
 * root (streams/mcp-server.ts) is the whole wiring.
 */
import { ConfigError } from '../../lib/errors.js';
import type { ApprovalEvent } from '../../lib/events.js';
import { createKeyRing } from '../../lib/ports/key-ring.js';
import { RequestStateCodec } from '../../lib/mrtr/request-state.js';
import type { ResolvedOptions } from '../../lib/options.js';
import { ApprovalCounts } from '../../lib/approval-counts.js';
import { isApprovalLedger, MemoryApprovalLedger, type ApprovalLedger } from '../../lib/ports/approval-ledger.js';
import type { ApprovalDeps } from '../mrtr-approval.js';

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
 * `maxRequestStateBytes`) and the ledger: the `ledger` given, else the one
 * the `approvalLedger` option builds (a cluster store, counting modern
 * tickets on its own: legacy parking stays on `counts`, per process), else
 * an in-memory one on `counts`. Events go to `emit`; a rejected
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
    ledger: ledger ?? configuredLedger(options, counts, report) ?? new MemoryApprovalLedger({ counts, scheduler: options.scheduler, ttlMs: options.approvalTtlMs, report }),
    scheduler: options.scheduler,
    report,
  };
}

/** The `approvalLedger` option's ledger, checked: a factory returning something else refuses to start. */
function configuredLedger(options: ResolvedOptions, counts: ApprovalCounts, report: (event: ApprovalEvent) => void): ApprovalLedger | null {
  if (options.approvalLedger === null) return null;
  const built: unknown = options.approvalLedger({
    caps: counts.caps,
    ttlMs: options.approvalTtlMs,
    scheduler: options.scheduler,
    report,
    logger: options.logger,
  });
  if (!isApprovalLedger(built)) {
    throw new ConfigError('approvalLedger', 'approvalLedger must return a ledger with admit, take, reissue and dropHolder methods');
  }
  return built;
}
