/** Shared pieces of the MRTR tests: a TestScheduler asserting with vitest, and a ledger, codec and deps on it. */
import { expect } from 'vitest';
import { TestScheduler } from 'rxjs/testing';
import type { ApprovalEvent } from '../../lib/events.js';
import { silentLogger } from '../../lib/logger.js';
import { createKeyRing, type KeyRing } from '../../lib/ports/key-ring.js';
import { RequestStateCodec } from '../../lib/mrtr/request-state.js';
import { ApprovalCounts, type ApprovalCaps } from '../../lib/approval-counts.js';
import { MemoryApprovalLedger } from '../../lib/ports/approval-ledger.js';
import type { ApprovalDeps } from '../../streams/mrtr-approval.js';

export const SECRET = 'mrtr-test-secret-of-at-least-32-bytes';

export function newTestScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

export function testRing(secret = SECRET): KeyRing {
  return createKeyRing([Buffer.from(secret, 'utf8')], silentLogger());
}

export interface Setup {
  readonly deps: ApprovalDeps;
  readonly counts: ApprovalCounts;
  readonly ledger: MemoryApprovalLedger;
  readonly events: Array<ApprovalEvent & { at: number }>;
}

export function approvalSetup(
  ts: TestScheduler,
  options: { caps?: Partial<ApprovalCaps>; ttlMs?: number; ring?: KeyRing; audience?: string; counts?: ApprovalCounts } = {},
): Setup {
  const events: Array<ApprovalEvent & { at: number }> = [];
  const report = (event: ApprovalEvent) => events.push({ ...event, at: ts.now() });
  const counts = options.counts ?? new ApprovalCounts({ maxPerHolder: 4, maxPerPeer: 8, maxTotal: 8, ...options.caps });
  const ledger = new MemoryApprovalLedger({ counts, scheduler: ts, ttlMs: options.ttlMs ?? 100, report });
  const codec = new RequestStateCodec(options.ring ?? testRing(), { audience: options.audience ?? 'files', maxBytes: 4096 });
  return { deps: { codec, ledger, scheduler: ts, report }, counts, ledger, events };
}
