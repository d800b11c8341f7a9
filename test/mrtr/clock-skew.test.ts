/**
 * The sealed expiry as a bound, on a virtual clock: with a ledger that keeps
 * time on a clock of its own (it states a clockSkewMs, as the Redis ledger
 * does), a retry on a process whose clock runs ahead is refused only once
 * past the sealed expiry plus that allowance, and until then the ledger
 * decides; with the in-memory ledger (no allowance) the sealed expiry is
 * exact, as it always was.
 */
import { describe, expect, test } from 'vitest';
import type { Observable, SchedulerLike } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { APPROVAL_INPUT_KEY } from '../../lib/mrtr/approval-form.js';
import type { ApprovalLedger, MemoryApprovalLedger } from '../../lib/ports/approval-ledger.js';
import { issueApproval, redeemApproval, type ApprovalAsk, type ApprovalDeps, type ApprovalStep } from '../../streams/mrtr-approval.js';
import { approvalSetup, newTestScheduler, type Setup } from './helpers.js';

const ASK: ApprovalAsk = { method: 'tools/call', target: 'wipe', arguments: { what: 'disk' }, holder: 'conn-A', peer: 'addr:1', prompt: 'Wipe it?' };
const APPROVE = { [APPROVAL_INPUT_KEY]: { action: 'accept', content: { approve: true } } };
const TTL_MS = 100;

/** The memory ledger's answers, as a ledger on a clock of its own would give them within its ttl, stating `clockSkewMs`. */
function ownClock(ledger: MemoryApprovalLedger, clockSkewMs: number): ApprovalLedger {
  return {
    admit: (request) => ledger.admit(request),
    take: (ticketId) => ledger.take(ticketId),
    reissue: (ticketId) => ledger.reissue(ticketId),
    dropHolder: (holder) => ledger.dropHolder(holder),
    clockSkewMs,
  };
}

/** The test scheduler's timers with a clock `ms` ahead: another process whose clock runs fast. */
function ahead(ts: TestScheduler, ms: number): SchedulerLike {
  return { now: () => ts.now() + ms, schedule: ts.schedule.bind(ts) };
}

function now(step$: Observable<ApprovalStep>): ApprovalStep {
  let step: ApprovalStep | undefined;
  step$.subscribe((s) => (step = s));
  if (step === undefined) throw new Error('no step');
  return step;
}

function issue(deps: ApprovalDeps): string {
  const step = now(issueApproval(deps, ASK));
  if (step.step !== 'input_required' || step.result.requestState === undefined) throw new Error(JSON.stringify(step));
  return step.result.requestState;
}

interface Redeemed {
  readonly step: ApprovalStep | undefined;
  readonly s: Setup;
  /** Tickets the ledger held right after the retry. */
  readonly outstanding: number;
}

/**
 * Issues at 0 on a process on the ledger's clock, then at `at` redeems on a
 * process `aheadMs` ahead sharing `ledger`.
 */
function redeemAhead(ledger: (s: Setup) => ApprovalLedger, aheadMs: number, at: number): Redeemed {
  const ts = newTestScheduler();
  let step: ApprovalStep | undefined;
  let setup: Setup | undefined;
  let outstanding = -1;
  ts.run(() => {
    const s = (setup = approvalSetup(ts, { ttlMs: TTL_MS }));
    const shared = ledger(s);
    const issuing: ApprovalDeps = { ...s.deps, ledger: shared };
    const fast: ApprovalDeps = { ...s.deps, ledger: shared, scheduler: ahead(ts, aheadMs) };
    let state = '';
    ts.schedule(() => (state = issue(issuing)), 0);
    ts.schedule(() => {
      step = now(redeemApproval(fast, { ...ASK, requestState: state, inputResponses: APPROVE }));
      outstanding = s.ledger.outstanding();
    }, at);
  });
  return { step, s: setup!, outstanding };
}

describe('a retry on a process 150 ms ahead, 10 ms into a 100 ms ticket', () => {
  test('a ledger on its own clock allowing 200 ms of skew decides: approved', () => {
    const { step, outstanding } = redeemAhead((s) => ownClock(s.ledger, 200), 150, 10);
    expect(step).toEqual({ step: 'approved' });
    expect(outstanding).toBe(0);
  });

  test('the in-memory ledger (one clock, no allowance): the sealed expiry is exact, so the timed-out deny as before', () => {
    const { step, s } = redeemAhead((s) => s.ledger, 150, 10);
    expect(step).toEqual({ step: 'denied', detail: 'timed out' });
    expect(s.events.filter((e) => e.type === 'request_state_rejected')).toMatchObject([{ reason: 'expired', at: 10 }]);
  });
});

describe('past the sealed expiry plus the allowance', () => {
  test('a process 250 ms ahead allowing 100: at 10 ms it reads 260, past 100 + 100, so timed out without asking the ledger', () => {
    const { step, s, outstanding } = redeemAhead((s) => ownClock(s.ledger, 100), 250, 10);
    expect(step).toEqual({ step: 'denied', detail: 'timed out' });
    expect(s.events.filter((e) => e.type === 'request_state_rejected')).toMatchObject([{ reason: 'expired', at: 10 }]);
    // The ticket was not taken: the sealed bound refused it first.
    expect(outstanding).toBe(1);
  });

  test('at the edge: 189 ahead (reading 199) the ledger is asked and approves; 190 ahead (reading 200) is timed out', () => {
    expect(redeemAhead((s) => ownClock(s.ledger, 100), 189, 10).step).toEqual({ step: 'approved' });
    expect(redeemAhead((s) => ownClock(s.ledger, 100), 190, 10).step).toEqual({ step: 'denied', detail: 'timed out' });
  });
});
