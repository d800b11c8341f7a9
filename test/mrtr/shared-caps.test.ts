/**
 * Legacy parked calls and modern approval tickets count against one set of
 * caps (lib/approval-counts.ts), through the real ParkingLot: a client
 * cannot double its share by switching eras, and fair eviction crosses eras
 * in both directions (a newcomer peer's ticket closes the fullest peer's
 * oldest parked call, a newcomer's parked call evicts the fullest peer's
 * oldest ticket, whose retry then hears why).
 */
import { describe, expect, test } from 'vitest';
import { map, mergeMap, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import type { ElicitationVerdict } from '../../lib/approval.js';
import { APPROVAL_INPUT_KEY } from '../../lib/mrtr/approval-form.js';
import { ApprovalCounts, type ApprovalCaps } from '../../lib/approval-counts.js';
import { ParkingLot } from '../../streams/state/parking.js';
import { issueApproval, redeemApproval, type ApprovalAsk, type ApprovalStep } from '../../streams/mrtr-approval.js';
import { approvalSetup, newTestScheduler, type Setup } from './helpers.js';

const TOO_MANY = 'too many elicitations pending';
const FULL_SERVER = 'too many elicitations pending on this server';
const APPROVE = { [APPROVAL_INPUT_KEY]: { action: 'accept', content: { approve: true } } };

function bothEras(ts: TestScheduler, caps: ApprovalCaps, ttlMs = 100, elicitationTimeoutMs = 100) {
  const counts = new ApprovalCounts(caps);
  const parking = new ParkingLot({ ...{ maxPerConnection: 1, maxPerPeer: 1, maxTotal: 1 }, timeoutMs: elicitationTimeoutMs, scheduler: ts, counts });
  const setup = approvalSetup(ts, { counts, ttlMs });
  const elicitations: Array<{ owner: string; id: string }> = [];
  /** Parks a call; its verdicts (and when) are pushed to the returned list. */
  const park = (owner: string, peer: string) => {
    const verdicts: Array<ElicitationVerdict & { at: number }> = [];
    parking
      .park({ owner, peer, tool: 'guarded', prompt: 'Run?', push: (request) => elicitations.push({ owner, id: String(request.id) }) })
      .subscribe((verdict) => verdicts.push({ ...verdict, at: ts.now() }));
    return verdicts;
  };
  return { counts, parking, setup, park, elicitations };
}

const ask = (holder: string, peer: string): ApprovalAsk => ({
  method: 'tools/call',
  target: 'guarded',
  arguments: {},
  holder,
  peer,
  prompt: 'Run?',
});

function stepNow(step$: Observable<ApprovalStep>): ApprovalStep {
  let step: ApprovalStep | undefined;
  step$.subscribe((s) => (step = s));
  return step as ApprovalStep;
}

function issue(s: Setup, holder: string, peer: string): ApprovalStep {
  return stepNow(issueApproval(s.deps, ask(holder, peer)));
}

function stateOf(step: ApprovalStep): string {
  if (step.step !== 'input_required') throw new Error(`not input_required: ${JSON.stringify(step)}`);
  return step.result.requestState as string;
}

describe('one set of caps for both eras', () => {
  test("a parked call and a ticket of one holder share its cap; an answered call frees the slot for a ticket", () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { setup, park, parking, elicitations, counts } = bothEras(ts, { maxPerHolder: 2, maxPerPeer: 4, maxTotal: 8 });
      const parked = park('ws-1', 'addr:1');
      expect(issue(setup, 'ws-1', 'addr:1').step).toBe('input_required');
      expect(issue(setup, 'ws-1', 'addr:1')).toEqual({ step: 'denied', detail: TOO_MANY });
      expect(park('ws-1', 'addr:1')).toEqual([{ approved: false, detail: TOO_MANY, at: 0 }]);
      expect([counts.heldBy('ws-1'), parking.parkedCount(), setup.ledger.outstanding()]).toEqual([2, 1, 1]);
      parking.answer('ws-1', elicitations[0]?.id, { result: { action: 'decline' } });
      expect(parked).toEqual([{ approved: false, detail: 'declined', at: 0 }]);
      expect(issue(setup, 'ws-1', 'addr:1').step).toBe('input_required');
    });
  });

  test("a peer's legacy sessions and its modern tickets share the peer cap: switching eras does not double it", () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { setup, park, counts } = bothEras(ts, { maxPerHolder: 2, maxPerPeer: 3, maxTotal: 16 });
      const session1 = park('session-1', 'addr:9');
      park('session-2', 'addr:9');
      expect(issue(setup, 'addr:9', 'addr:9').step).toBe('input_required');
      // At the peer cap, and no holder of the peer holds more than the newcomer's: refused.
      expect(issue(setup, 'addr:9', 'addr:9')).toEqual({ step: 'denied', detail: TOO_MANY });
      // A new session holding none may only make room inside its own peer: session-1's oldest call goes.
      expect(park('session-3', 'addr:9')).toEqual([]);
      expect(session1).toEqual([{ approved: false, detail: TOO_MANY, at: 0 }]);
      expect(counts.heldByPeer('addr:9')).toBe(3);
      // Another peer is untouched by all this.
      expect(issue(setup, 'addr:7', 'addr:7').step).toBe('input_required');
    });
  });
});

describe('fair eviction across eras', () => {
  test("a newcomer peer's ticket closes the fullest peer's oldest parked call with the server-full deny", () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { setup, park, parking } = bothEras(ts, { maxPerHolder: 2, maxPerPeer: 2, maxTotal: 2 });
      const first = park('q-conn', 'Q');
      const second = park('q-conn', 'Q');
      expect(issue(setup, 'r-conn', 'R').step).toBe('input_required');
      expect(first).toEqual([{ approved: false, detail: FULL_SERVER, at: 0 }]);
      expect(second).toEqual([]);
      expect(parking.parkedCount()).toBe(1);
    });
  });

  test("a newcomer's parked call evicts the fullest peer's oldest ticket; that ticket's retry hears why, the other's runs", () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { setup, park } = bothEras(ts, { maxPerHolder: 2, maxPerPeer: 2, maxTotal: 2 });
      const oldest = stateOf(issue(setup, 'addr:R', 'R'));
      const newer = stateOf(issue(setup, 'addr:R', 'R'));
      const parked = park('q-conn', 'Q');
      expect(parked).toEqual([]);
      const redeem = (state: string) => stepNow(redeemApproval(setup.deps, { ...ask('addr:R', 'R'), requestState: state, inputResponses: APPROVE }));
      expect(redeem(oldest)).toEqual({ step: 'denied', detail: FULL_SERVER });
      expect(redeem(newer)).toEqual({ step: 'approved' });
    });
  });
});

describe('slots freed by time, on the virtual clock', () => {
  test('an expired ticket frees its slot for a parked call; a timed-out parked call frees it for a ticket', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const { setup, park } = bothEras(ts, { maxPerHolder: 1, maxPerPeer: 1, maxTotal: 1 }, 10, 10);
      ts.schedule(() => issue(setup, 'c', 'c'), 0);
      // Parks at 5 (refused: the ticket holds the slot) and at 11 (the ticket expired at 10).
      const parks = hot('-----a-----b');
      const verdicts: Array<Array<ElicitationVerdict & { at: number }>> = [];
      parks.subscribe(() => verdicts.push(park('c', 'c')));
      // The parked call times out at 21; tickets asked at 15 (refused) and 22 (issued).
      const asks = hot('---------------a------b');
      expectObservable(
        asks.pipe(
          mergeMap(() => issueApproval(setup.deps, ask('c', 'c'))),
          map((step) => (step.step === 'denied' ? step.detail : step.step)),
        ),
      ).toBe('---------------a------b', { a: TOO_MANY, b: 'input_required' });
      ts.schedule(() => {
        expect(verdicts).toEqual([
          [{ approved: false, detail: TOO_MANY, at: 5 }],
          [{ approved: false, detail: 'timed out', at: 21 }],
        ]);
      }, 30);
    });
  });
});
