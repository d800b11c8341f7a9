/**
 * Ledgered MRTR approvals end to end, without a transport: issueApproval
 * answers the question with a sealed ticket, redeemApproval turns the retry
 * into exactly one of run / deny / ask again / the fixed -32602, on a
 * virtual clock.
 */
import { describe, expect, test } from 'vitest';
import { firstValueFrom, merge, mergeMap, map, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { APPROVAL_INPUT_KEY } from '../../lib/mrtr/approval-form.js';
import { openHandlerState, sealHandlerState } from '../../lib/mrtr/handler-state.js';
import { RequestStateCodec } from '../../lib/mrtr/request-state.js';
import { issueApproval, redeemApproval, type ApprovalAsk, type ApprovalStep } from '../../streams/mrtr-approval.js';
import { approvalSetup, newTestScheduler, testRing, type Setup } from './helpers.js';

const ASK: ApprovalAsk = {
  method: 'tools/call',
  target: 'delete_file',
  arguments: { path: '/tmp/a', recursive: false },
  holder: 'conn-A',
  peer: 'addr:10.0.0.1',
  prompt: 'Delete /tmp/a?',
};

const APPROVE = { [APPROVAL_INPUT_KEY]: { action: 'accept', content: { approve: true } } };

/** Runs a synchronous step now (the memory ledger answers on subscription). */
function now(step$: Observable<ApprovalStep>): ApprovalStep {
  let step: ApprovalStep | undefined;
  step$.subscribe((s) => (step = s));
  if (step === undefined) throw new Error('no step');
  return step;
}

function stateOf(step: ApprovalStep): string {
  if (step.step !== 'input_required' || step.result.requestState === undefined) throw new Error(`not input_required: ${JSON.stringify(step)}`);
  return step.result.requestState;
}

function issue(s: Setup, ask: ApprovalAsk = ASK): string {
  return stateOf(now(issueApproval(s.deps, ask)));
}

function retry(s: Setup, requestState: unknown, inputResponses: unknown = APPROVE, change: Partial<ApprovalAsk> = {}) {
  return redeemApproval(s.deps, { ...ASK, ...change, requestState, inputResponses });
}

function onClock(test: (ts: TestScheduler, s: Setup) => void, options: Parameters<typeof approvalSetup>[1] = {}) {
  const ts = newTestScheduler();
  ts.run(() => test(ts, approvalSetup(ts, options)));
}

describe('round 1', () => {
  test('the question: the approval form under rxmcp.approve, and a sealed requestState', () => {
    onClock((_ts, s) => {
      const step = now(issueApproval(s.deps, ASK));
      expect(step).toEqual({
        step: 'input_required',
        result: {
          resultType: 'input_required',
          inputRequests: {
            'rxmcp.approve': {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: 'Delete /tmp/a?',
                requestedSchema: {
                  type: 'object',
                  properties: { approve: { type: 'boolean', description: 'Approve running the delete_file tool' } },
                  required: ['approve'],
                },
              },
            },
          },
          requestState: expect.stringMatching(/^rxs1\./),
        },
      });
      expect(s.ledger.outstanding('conn-A')).toBe(1);
    });
  });

  test('arguments that cannot be bound are denied, not held', () => {
    onClock((_ts, s) => {
      let deep: unknown = 0;
      for (let i = 0; i < 100; i++) deep = [deep];
      expect(now(issueApproval(s.deps, { ...ASK, arguments: { deep } }))).toEqual({
        step: 'denied',
        detail: 'request too large to hold for approval',
      });
      expect(s.counts.total()).toBe(0);
    });
  });

  test('past the holder cap the ask is the seed deny', () => {
    onClock(
      (_ts, s) => {
        issue(s);
        expect(now(issueApproval(s.deps, ASK))).toEqual({ step: 'denied', detail: 'too many elicitations pending' });
      },
      { caps: { maxPerHolder: 1 } },
    );
  });
});

describe('the retry', () => {
  test('approve runs once; presenting the same state again asks again with a new ticket, never a second run', () => {
    onClock((_ts, s) => {
      const state = issue(s);
      expect(now(retry(s, state))).toEqual({ step: 'approved' });
      const again = now(retry(s, state));
      expect(again.step).toBe('input_required');
      expect(stateOf(again)).not.toBe(state);
      expect(s.ledger.outstanding()).toBe(1);
    });
  });

  test('retries arriving in one instant with the same approval: one approved, the others asked again', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const s = approvalSetup(ts);
      let state = '';
      ts.schedule(() => (state = issue(s)), 0);
      const retries = merge(hot('----r'), hot('----r'), hot('----r'));
      expectObservable(
        retries.pipe(
          mergeMap(() => retry(s, state)),
          map((step) => (step.step === 'approved' ? 'A' : step.step === 'input_required' ? 'Q' : 'X')),
        ),
      ).toBe('----(AQQ)');
    });
  });

  test.each([
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'cancelled'],
    ['accept without approve', { action: 'accept', content: { approve: false } }, 'not approved'],
    ['accept with approve "true" (a string)', { action: 'accept', content: { approve: 'true' } }, 'not approved'],
    ['accept with no content', { action: 'accept' }, 'not approved'],
    ['no action', { content: { approve: true } }, 'not approved (the answer named no action)'],
    ['not an object', 'yes', 'not approved (the answer named no action)'],
  ])('%s: the seed deny, and the ticket is spent', (_name, answer, detail) => {
    onClock((_ts, s) => {
      const state = issue(s);
      expect(now(retry(s, state, { [APPROVAL_INPUT_KEY]: answer }))).toEqual({ step: 'denied', detail });
      expect(s.counts.total()).toBe(0);
      expect(now(retry(s, state)).step).toBe('input_required');
    });
  });

  test('no answer: the same slot is asked again under a new ticket; an earlier state of that slot is spent', () => {
    onClock((_ts, s) => {
      const states = [issue(s)];
      for (const missing of [undefined, {}, { other: { action: 'accept' } }, null, [APPROVE]]) {
        const step = now(redeemApproval(s.deps, { ...ASK, requestState: states.at(-1), inputResponses: missing }));
        expect(step.step).toBe('input_required');
        expect(s.counts.total()).toBe(1);
        states.push(stateOf(step));
      }
      // The first state's ticket was replaced: its approval asks again (in a new slot), it does not run.
      expect(now(retry(s, states[0])).step).toBe('input_required');
      expect(s.counts.total()).toBe(2);
      expect(now(retry(s, states.at(-1)))).toEqual({ step: 'approved' });
    });
  });

  test('extra input responses are ignored', () => {
    onClock((_ts, s) => {
      expect(now(retry(s, issue(s), { ...APPROVE, unrelated: { action: 'decline' } }))).toEqual({ step: 'approved' });
    });
  });

  test('a changed question: the old answer does not count, the new question is asked in the same slot', () => {
    onClock((_ts, s) => {
      const state = issue(s);
      const step = now(retry(s, state, APPROVE, { prompt: 'Delete /tmp/a and everything under it?' }));
      expect(step).toMatchObject({
        step: 'input_required',
        result: { inputRequests: { 'rxmcp.approve': { params: { message: 'Delete /tmp/a and everything under it?' } } } },
      });
      expect(s.counts.total()).toBe(1);
      expect(now(retry(s, stateOf(step), APPROVE, { prompt: 'Delete /tmp/a and everything under it?' }))).toEqual({ step: 'approved' });
    });
  });
});

describe('silence is not consent: expiry on the virtual clock', () => {
  test('approved at exp - 1; at exp + 1 the authentic state is the timed-out deny and nothing runs', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const s = approvalSetup(ts, { ttlMs: 10 });
      const states: string[] = [];
      ts.schedule(() => states.push(issue(s), issue(s)), 0);
      const retries = hot('---------a-b', { a: 0, b: 1 });
      expectObservable(retries.pipe(mergeMap((i) => retry(s, states[i])))).toBe('---------a-b', {
        a: { step: 'approved' },
        b: { step: 'denied', detail: 'timed out' },
      });
      ts.schedule(() => {
        expect(s.events.filter((e) => e.type === 'approval_expired').map((e) => e.at)).toEqual([10]);
        expect(s.events.filter((e) => e.type === 'request_state_rejected')).toEqual([
          { type: 'request_state_rejected', method: 'tools/call', name: 'delete_file', reason: 'expired', at: 11 },
        ]);
      }, 20);
    });
  });
});

describe('a state that fails a check: the fixed -32602, the reason reported, the ticket untouched', () => {
  const ALICE_STATE = (s: Setup) => issue(s);

  test.each<[string, (state: string, s: Setup) => Observable<ApprovalStep>, string]>([
    ['another owner', (state, s) => retry(s, state, APPROVE, { holder: 'conn-B' }), 'wrong_owner'],
    ['another tool', (state, s) => retry(s, state, APPROVE, { target: 'delete_everything' }), 'wrong_target'],
    ['another method', (state, s) => retry(s, state, APPROVE, { method: 'prompts/get' }), 'wrong_method'],
    ['other arguments', (state, s) => retry(s, state, APPROVE, { arguments: { path: '/', recursive: true } }), 'wrong_arguments'],
    ['a tampered byte', (state, s) => retry(s, state.slice(0, 30) + (state[30] === 'x' ? 'y' : 'x') + state.slice(31)), 'unauthentic'],
    ['oversize', (state, s) => retry(s, state + 'A'.repeat(4096)), 'oversize'],
    ['not a string', (_state, s) => retry(s, { forged: true }), 'malformed'],
    ['absent', (_state, s) => retry(s, undefined), 'malformed'],
    [
      'another audience sharing the key',
      (state, s) => {
        const other = new RequestStateCodec(testRing(), { audience: 'billing', maxBytes: 4096 });
        return redeemApproval({ ...s.deps, codec: other }, { ...ASK, requestState: state, inputResponses: APPROVE });
      },
      'wrong_audience',
    ],
    [
      'a server with another key',
      (state, s) => {
        const other = new RequestStateCodec(testRing('another-secret-that-is-32-bytes-long'), { audience: 'files', maxBytes: 4096 });
        return redeemApproval({ ...s.deps, codec: other }, { ...ASK, requestState: state, inputResponses: APPROVE });
      },
      'unknown_key',
    ],
  ])('%s', (_name, attempt, reason) => {
    onClock((_ts, s) => {
      const state = ALICE_STATE(s);
      expect(now(attempt(state, s))).toEqual({ step: 'invalid', reason });
      expect(s.events.filter((e) => e.type === 'request_state_rejected').map((e) => 'reason' in e && e.reason)).toEqual([reason]);
      expect(s.counts.total()).toBe(1);
      expect(now(retry(s, state))).toEqual({ step: 'approved' });
    });
  });

  test('a state sealed for an approval is not a handler state, and the other way round', () => {
    onClock((_ts, s) => {
      const binding = { method: 'tools/call', target: 'delete_file', arguments: ASK.arguments, owner: 'conn-A' };
      const handlerState = sealHandlerState(s.deps.codec, binding, { step: 2 }, 0, 100);
      expect(openHandlerState(s.deps.codec, binding, handlerState, 99)).toEqual({ ok: true, payload: { step: 2 } });
      expect(now(retry(s, handlerState))).toEqual({ step: 'invalid', reason: 'wrong_kind' });
      expect(openHandlerState(s.deps.codec, binding, issue(s), 0)).toEqual({ ok: false, reason: 'wrong_kind' });
      expect(openHandlerState(s.deps.codec, { ...binding, owner: 'conn-B' }, handlerState, 0)).toEqual({ ok: false, reason: 'wrong_owner' });
      expect(openHandlerState(s.deps.codec, binding, handlerState, 100)).toEqual({ ok: false, reason: 'expired' });
    });
  });
});

describe('eviction', () => {
  test('a ticket evicted from a full server: its retry gets the eviction deny, until its own expiry', () => {
    onClock(
      (_ts, s) => {
        const alice = issue(s);
        issue(s, { ...ASK, holder: 'conn-B', peer: 'addr:10.0.0.2' });
        expect(s.events.map((e) => e.type)).toEqual(['approval_issued', 'approval_evicted', 'approval_issued']);
        expect(now(retry(s, alice))).toEqual({ step: 'denied', detail: 'too many elicitations pending on this server' });
      },
      { caps: { maxPerHolder: 1, maxPerPeer: 1, maxTotal: 1 } },
    );
  });
});

test('the Observables are cold and emit once', async () => {
  const ts = newTestScheduler();
  const s = approvalSetup(ts);
  const issued = issueApproval(s.deps, ASK);
  expect(s.counts.total()).toBe(0);
  const step = await firstValueFrom(issued);
  expect(step.step).toBe('input_required');
  expect(await firstValueFrom(retry(s, stateOf(step)))).toEqual({ step: 'approved' });
});
