/**
 * Issue 17 (part 3), the mechanism on a virtual clock: an MRTR retry keeps
 * the permit its tools/call was admitted with through the ticket's take
 * and into the approved run. The pool is `permitPool` with a per-owner cap
 * decided when a grant arrives (GRANT_MS after the ask, as a Redis round
 * trip); the ledger is the in-memory one whose `take` answers TAKE_MS
 * later (the Redis ledger's round trip). Before the fix the retry gave its
 * permit back before the take and asked again for the run, so another
 * call of the same owner could take it in between: the ticket was spent
 * and the run refused `busy`.
 */
import { map, switchMap, timer } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, test } from 'vitest';
import { createServer, Registry, type McpServer } from '../../lib/index.js';
import { permitPool, type Acquired, type PermitPool } from '../../lib/ports/permits.js';
import { ApprovalCounts } from '../../lib/approval-counts.js';
import { MemoryApprovalLedger, type ApprovalLedger, type ApprovalLedgerSetup } from '../../lib/ports/approval-ledger.js';
import { modernRpc } from '../era/modern-helpers.js';
import { approve, ELICIT, KEY } from '../mrtr/modern-fixture.js';
import { cancelled, newTestScheduler, newToolLog, record, sleepTool, type Recorder, type ToolLog } from './harness.js';

const GRANT_MS = 2;
const TAKE_MS = 2;
const WORK_MS = 10;

/** What the pool saw, frame by frame; grants are numbered from 1 in grant order. */
interface PoolLog {
  readonly asked: number[];
  readonly granted: number[];
  readonly refused: number[];
  /** [grant number, frame] per release. */
  readonly released: Array<[number, number]>;
}

/** At most `cap` permits per owner, decided when the grant arrives. */
function cappedPool(ts: TestScheduler, cap: number, log: PoolLog): PermitPool {
  const held = new Map<string, number>();
  let grants = 0;
  const decide = (owner: string): Acquired<{ id: number; owner: string }> => {
    const now = held.get(owner) ?? 0;
    if (now >= cap) {
      log.refused.push(ts.now());
      return { granted: false, scope: 'principal' };
    }
    held.set(owner, now + 1);
    grants += 1;
    log.granted.push(ts.now());
    return { granted: true, grant: { id: grants, owner } };
  };
  return permitPool(
    (owner) => {
      log.asked.push(ts.now());
      return timer(GRANT_MS, ts).pipe(map(() => decide(owner)));
    },
    (grant) => {
      held.set(grant.owner, (held.get(grant.owner) ?? 1) - 1);
      log.released.push([grant.id, ts.now()]);
    },
  );
}

/** The in-memory ledger, its takes answered TAKE_MS late (unsubscribed before then, nothing is taken). */
function slowTakes(ts: TestScheduler): (setup: ApprovalLedgerSetup) => ApprovalLedger {
  return (setup) => {
    const ledger = new MemoryApprovalLedger({ counts: new ApprovalCounts(setup.caps), scheduler: setup.scheduler, ttlMs: setup.ttlMs, report: setup.report });
    return {
      admit: (request) => ledger.admit(request),
      take: (ticketId) => timer(TAKE_MS, ts).pipe(switchMap(() => ledger.take(ticketId))),
      reissue: (ticketId) => ledger.reissue(ticketId),
      dropHolder: (holder) => ledger.dropHolder(holder),
    };
  };
}

interface Fixture {
  readonly server: McpServer;
  readonly pool: PoolLog;
  readonly wipe: ToolLog;
  readonly work: ToolLog;
}

/** `wipe` needs an approval, `work` just runs; both take WORK_MS. */
function fixture(ts: TestScheduler, cap: number): Fixture {
  const pool: PoolLog = { asked: [], granted: [], refused: [], released: [] };
  const wipe = newToolLog();
  const work = newToolLog();
  const server = createServer({
    registry: new Registry().registerTools([sleepTool('wipe', WORK_MS, ts, wipe), sleepTool('work', WORK_MS, ts, work)]),
    scheduler: ts,
    clusterPermits: cappedPool(ts, cap, pool),
    approvalLedger: slowTakes(ts),
    authorizer: (name) => (name === 'wipe' ? { ask: 'Wipe it?' } : 'allow'),
    authorizerSource: 'configured',
    requestStateKeys: [KEY],
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  return { server, pool, wipe, work };
}

const call = (id: number, name: string, extra: Record<string, unknown> = {}) =>
  modernRpc(id, 'tools/call', { name, arguments: {}, ...extra }, { capabilities: ELICIT });

/** The first round's sealed ticket, read from the connection when the retry is sent. */
function retryOf(recorder: () => Recorder, id: number): () => Record<string, unknown> {
  return () => {
    const first = recorder().repliesTo(1)[0]?.message as { result?: { requestState?: string } } | undefined;
    return call(id, 'wipe', { requestState: first?.result?.requestState, inputResponses: approve });
  };
}

/** Each reply as [id, frame, what it says]. */
function replies(recorder: Recorder): Array<[unknown, number, string]> {
  return recorder.frames
    .filter((f) => 'id' in f.message)
    .map((f) => {
      const reply = f.message as { id: unknown; result?: { resultType?: string; content?: Array<{ text: string }>; _meta?: Record<string, unknown> } };
      const result = reply.result;
      if (result?.resultType === 'input_required') return [reply.id, f.frame, 'asked'];
      const busy = result?._meta?.['rxmcp/busy'] as { scope: string } | undefined;
      return [reply.id, f.frame, busy !== undefined ? `busy ${busy.scope}` : (result?.content?.[0]?.text ?? JSON.stringify(reply))];
    });
}

function run(cap: number, marbles: string, values: (recorder: () => Recorder) => Record<string, unknown>): Fixture & { recorder: Recorder } {
  const ts = newTestScheduler();
  const made = fixture(ts, cap);
  let recorder!: Recorder;
  ts.run(({ hot }) => {
    recorder = record(made.server, 'c1', hot(marbles, values(() => recorder)), ts);
  });
  return { ...made, recorder };
}

describe('an approved retry keeps the permit it was admitted with', () => {
  test('another call of the owner asking between the take and the run is refused, not the approved run (cap 1)', () => {
    // 1: the ask (permit 3, given back with the question). 5: the retry, granted at 7, takes the
    // ticket 7..9 and runs 9..19 under that permit. 8: another call of c1, decided at 10: busy.
    const { recorder, pool, wipe, work } = run(1, '-a---r--w', (r) => ({ a: call(1, 'wipe'), r: retryOf(r, 2), w: call(3, 'work') }));
    expect(replies(recorder)).toEqual([
      [1, 3, 'asked'],
      [3, 10, 'busy principal'],
      [2, 19, 'done'],
    ]);
    expect(wipe).toEqual({ started: [9], finished: [19], aborted: [] });
    expect(work.started).toEqual([]);
    // One ask per call: the approved run asked for nothing; its permit (grant 2) went back when it ended.
    expect(pool.asked).toEqual([1, 5, 8]);
    expect(pool.granted).toEqual([3, 7]);
    expect(pool.released).toEqual([
      [1, 3],
      [2, 19],
    ]);
  });

  test('concurrent retries of one ticket: the winner runs under its own permit, the losers are asked again and then give theirs back (cap 2)', () => {
    // Retries at 5, 6 and 9. The first takes the ticket (7..9) and runs 9..19; the second holds its
    // permit through its take (8..10), finds the ticket spent and is asked again; the third is
    // granted at 11 (one permit free again) and is asked again at 13.
    const { recorder, pool, wipe } = run(2, '-a---rs--t', (r) => ({ a: call(1, 'wipe'), r: retryOf(r, 2), s: retryOf(r, 3), t: retryOf(r, 4) }));
    expect(replies(recorder)).toEqual([
      [1, 3, 'asked'],
      [3, 10, 'asked'],
      [4, 13, 'asked'],
      [2, 19, 'done'],
    ]);
    expect(wipe.started).toEqual([9]);
    expect(pool.asked).toEqual([1, 5, 6, 9]);
    expect(pool.granted).toEqual([3, 7, 8, 11]);
    expect(pool.refused).toEqual([]);
    expect(pool.released).toEqual([
      [1, 3],
      [3, 10],
      [4, 13],
      [2, 19],
    ]);
  });

  test('a retry refused a permit never takes the ticket: a later retry runs the tool (cap 1)', () => {
    // `work` holds c1's permit 6..16; the retry at 5 is busy at 7, the ticket untouched; the retry
    // at 17 is granted at 19, takes it 19..21 and runs 21..31.
    const marbles = '-a--wr-----------s';
    const { recorder, pool, wipe } = run(1, marbles, (r) => ({ a: call(1, 'wipe'), w: call(9, 'work'), r: retryOf(r, 2), s: retryOf(r, 3) }));
    expect(replies(recorder)).toEqual([
      [1, 3, 'asked'],
      [2, 7, 'busy principal'],
      [9, 16, 'done'],
      [3, 31, 'done'],
    ]);
    expect(wipe.started).toEqual([21]);
    expect(pool.refused).toEqual([7]);
    expect(pool.released).toEqual([
      [1, 3],
      [2, 16],
      [3, 31],
    ]);
  });

  test('a retry cancelled during its take gives its permit back then, and its ticket stays for the next retry', () => {
    // The retry at 5 is granted at 7 and cancelled at 8, its take (7..9) unanswered: no reply, the
    // permit back at 8. The retry at 9 is granted at 11, takes the ticket 11..13 and runs 13..23.
    const { recorder, pool, wipe } = run(1, '-a---r--cs', (r) => ({ a: call(1, 'wipe'), r: retryOf(r, 2), c: cancelled(2), s: retryOf(r, 3) }));
    expect(replies(recorder)).toEqual([
      [1, 3, 'asked'],
      [3, 23, 'done'],
    ]);
    expect(wipe).toEqual({ started: [13], finished: [23], aborted: [] });
    expect(pool.released).toEqual([
      [1, 3],
      [2, 8],
      [3, 23],
    ]);
  });
});
