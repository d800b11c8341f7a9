/**
 * The approval ledger on a virtual clock: tickets are redeemed at most once
 * (also under retries landing in the same instant), expire at exactly their
 * deadline with no timer per ticket, and obey the seed's caps and fair
 * eviction, an evicted ticket leaving a tombstone that tells a late retry
 * what happened.
 */
import { describe, expect, test } from 'vitest';
import { merge, mergeMap, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { ApprovalEvent } from '../../lib/events.js';
import { ApprovalCounts, type ApprovalCaps } from '../../lib/approval-counts.js';
import { MemoryApprovalLedger, type TicketRequest } from '../../lib/ports/approval-ledger.js';

const FULL_SERVER = 'too many elicitations pending on this server';
const TOO_MANY = 'too many elicitations pending';

function newTestScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

function ledgerOn(ts: TestScheduler, caps: Partial<ApprovalCaps> = {}, ttlMs = 100) {
  let n = 0;
  const events: Array<ApprovalEvent & { at: number }> = [];
  const counts = new ApprovalCounts({ maxPerHolder: 4, maxPerPeer: 8, maxTotal: 8, ...caps });
  const ledger = new MemoryApprovalLedger({
    counts,
    scheduler: ts,
    ttlMs,
    newTicketId: () => `t${++n}`,
    report: (event) => events.push({ ...event, at: ts.now() }),
  });
  return { counts, ledger, events };
}

const as = (holder: string, peer = holder): TicketRequest => ({ holder, peer });

/** The outcome of an admission as a short string: the ticket id or the refusal. */
function admitted(ledger: MemoryApprovalLedger, request: TicketRequest): string {
  const outcome = ledger.admitNow(request);
  return outcome.admitted ? outcome.ticket.ticketId : `refused: ${outcome.detail}`;
}

describe('exactly-once redemption', () => {
  test('issue, then take once: the second take finds nothing; the slot is free again', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const { ledger, counts } = ledgerOn(ts);
      const retries = hot('--a--b', { a: 't1', b: 't1' });
      ts.schedule(() => ledger.admitNow(as('alice')), 0);
      const takes = retries.pipe(mergeMap((id) => ledger.take(id)));
      expectObservable(takes).toBe('--x--y', {
        x: { taken: true, ticket: { ticketId: 't1', holder: 'alice', peer: 'alice', issuedAt: 0, expiresAt: 100 } },
        y: { taken: false, reason: 'unknown' },
      });
      ts.schedule(() => expect([counts.total(), ledger.outstanding()]).toEqual([0, 0]), 3);
    });
  });

  test('retries presenting one ticket in the same instant: exactly one takes it', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const { ledger, events } = ledgerOn(ts);
      ts.schedule(() => ledger.admitNow(as('alice')), 0);
      const first = hot('---a', { a: 't1' });
      const second = hot('---a', { a: 't1' });
      const third = hot('---a', { a: 't1' });
      const taken = merge(first, second, third).pipe(
        mergeMap((id) => ledger.take(id)),
        map((take) => (take.taken ? 'W' : 'L')),
      );
      expectObservable(taken).toBe('---(WLL)');
      ts.schedule(() => expect(events.filter((e) => e.type === 'approval_redeemed')).toHaveLength(1), 5);
    });
  });

  test('a reissued ticket has a new id and a fresh expiry in the same slot; the old id is spent', () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { ledger, counts } = ledgerOn(ts);
      ts.schedule(() => ledger.admitNow(as('alice')), 0);
      ts.schedule(() => {
        expect(ledger.reissueNow('t1')).toEqual({
          reissued: true,
          ticket: { ticketId: 't2', holder: 'alice', peer: 'alice', issuedAt: 40, expiresAt: 140 },
        });
        expect(ledger.reissueNow('t1')).toEqual({ reissued: false, reason: 'unknown' });
        expect(counts.heldBy('alice')).toBe(1);
        // Scheduled after the new deadline, so each check runs after the sweep of its instant.
        // The old deadline (100) no longer applies; the new one (140) does.
        ts.schedule(() => expect(ledger.outstanding()).toBe(1), 139 - 40);
        ts.schedule(() => expect([ledger.outstanding(), counts.total()]).toEqual([0, 0]), 140 - 40);
      }, 40);
    });
  });
});

describe('expiry on the scheduler', () => {
  test('a ticket can be taken at exp - 1; at exp it is expired, and the sweep frees its slot at exactly exp', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const { ledger, counts, events } = ledgerOn(ts, {}, 10);
      ts.schedule(() => {
        ledger.admitNow(as('alice'));
        ledger.admitNow(as('alice'));
        ledger.admitNow(as('bob'));
        // Scheduled after the deadlines, so each runs after its instant's sweep.
        ts.schedule(() => expect(counts.total()).toBe(2), 9); // t1 taken at 9, t2 and t3 outstanding
        ts.schedule(() => expect(counts.total()).toBe(0), 10);
      }, 0);
      // t1 at 9 (exp - 1); t2 at 10 (exp: this retry runs ahead of the sweep) and at 11 (swept).
      const retries = hot('---------abc', { a: 't1', b: 't2', c: 't2' });
      expectObservable(retries.pipe(mergeMap((id) => ledger.take(id)))).toBe('---------xyz', {
        x: expect.objectContaining({ taken: true }),
        y: { taken: false, reason: 'expired' },
        z: { taken: false, reason: 'unknown' },
      });
      ts.schedule(() => expect(events.filter((e) => e.type === 'approval_expired').map((e) => e.at)).toEqual([10, 10]), 20);
    });
  });

  test('a take in the instant of expiry, before the sweep has run, is expired all the same', () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { ledger } = ledgerOn(ts, {}, 10);
      // Scheduled before the admission, so at frame 10 it runs ahead of the deadline's action.
      ts.schedule(() => expect(ledger.takeNow('t1')).toEqual({ taken: false, reason: 'expired' }), 10);
      ts.schedule(() => ledger.admitNow(as('alice')), 0);
    });
  });

  test('many tickets, one timer: the scheduler holds at most one action for the ledger', () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { ledger } = ledgerOn(ts, { maxPerHolder: 64, maxPerPeer: 64, maxTotal: 64 });
      for (let i = 0; i < 50; i++) ts.schedule(() => ledger.admitNow(as(`h${i}`)), i);
      ts.schedule(() => {
        expect(ledger.outstanding()).toBe(50);
        expect(ts.actions.length).toBe(1);
        ts.schedule(() => expect([ledger.outstanding(), ts.actions.length]).toEqual([0, 0]), 90);
      }, 60);
    });
  });
});

describe('caps and fair eviction', () => {
  test('past the per-holder cap a newcomer is refused; its outstanding tickets are untouched', () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { ledger } = ledgerOn(ts, { maxPerHolder: 2 });
      ts.schedule(() => {
        expect([admitted(ledger, as('alice')), admitted(ledger, as('alice')), admitted(ledger, as('alice'))]).toEqual([
          't1',
          't2',
          `refused: ${TOO_MANY}`,
        ]);
        expect(ledger.outstanding('alice')).toBe(2);
      }, 0);
    });
  });

  test("on a full server, a holder with fewer evicts the fullest holder's oldest ticket; anyone else is refused", () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { ledger, events } = ledgerOn(ts, { maxPerHolder: 3, maxPerPeer: 3, maxTotal: 4 });
      const log: string[] = [];
      // a holds t1 (oldest overall), b holds t2, t3, t4: the server is full, b holds the most.
      ts.schedule(() => log.push(admitted(ledger, as('a'))), 0);
      ts.schedule(() => log.push(admitted(ledger, as('b')), admitted(ledger, as('b')), admitted(ledger, as('b'))), 1);
      // c holds none: evicts b's oldest (t2), not a's older t1.
      ts.schedule(() => log.push(admitted(ledger, as('c'))), 2);
      // b (2) again: the fullest holds 2 = b itself: refused. a (1): b holds more: evicts t3.
      ts.schedule(() => log.push(admitted(ledger, as('b')), admitted(ledger, as('a'))), 3);
      // Now a 2, b 1, c 1: c evicts a's oldest, t1.
      ts.schedule(() => log.push(admitted(ledger, as('c'))), 4);
      ts.schedule(() => {
        expect(log).toEqual(['t1', 't2', 't3', 't4', 't5', `refused: ${FULL_SERVER}`, 't6', 't7']);
        expect(events.filter((e) => e.type === 'approval_evicted').map((e) => [e.at, e.detail])).toEqual([
          [2, FULL_SERVER],
          [3, FULL_SERVER],
          [4, FULL_SERVER],
        ]);
        expect(['t1', 't2', 't3', 't4', 't5', 't6', 't7'].map((id) => ledger.takeNow(id))).toEqual([
          { taken: false, reason: 'evicted', detail: FULL_SERVER },
          { taken: false, reason: 'evicted', detail: FULL_SERVER },
          { taken: false, reason: 'evicted', detail: FULL_SERVER },
          expect.objectContaining({ taken: true, ticket: expect.objectContaining({ holder: 'b' }) }),
          expect.objectContaining({ taken: true, ticket: expect.objectContaining({ holder: 'c' }) }),
          expect.objectContaining({ taken: true, ticket: expect.objectContaining({ holder: 'a' }) }),
          expect.objectContaining({ taken: true, ticket: expect.objectContaining({ holder: 'c' }) }),
        ]);
      }, 5);
    });
  });

  test('fairness counts peers first: many holders of one peer only ever evict that peer', () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { ledger } = ledgerOn(ts, { maxPerHolder: 1, maxPerPeer: 4, maxTotal: 4 });
      ts.schedule(() => {
        const log = [
          admitted(ledger, as('q1', 'Q')), // t1: the oldest on the server, peer Q's only ticket
          admitted(ledger, as('p1', 'P')),
          admitted(ledger, as('p2', 'P')),
          admitted(ledger, as('p3', 'P')), // full; P holds 3
          admitted(ledger, as('p4', 'P')), // P holds the most: may only evict inside P (p1's t2)
        ];
        expect(log).toEqual(['t1', 't2', 't3', 't4', 't5']);
        expect(ledger.takeNow('t1').taken).toBe(true);
        expect(ledger.takeNow('t2')).toEqual({ taken: false, reason: 'evicted', detail: FULL_SERVER });
      }, 0);
    });
  });

  test('a tombstone lasts until the evicted ticket would have expired, then the retry is just unknown', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const { ledger } = ledgerOn(ts, { maxPerHolder: 1, maxPerPeer: 1, maxTotal: 1 }, 10);
      ts.schedule(() => ledger.admitNow(as('a')), 0);
      ts.schedule(() => ledger.admitNow(as('b')), 2);
      const retries = hot('---------ab', { a: 't1', b: 't1' });
      expectObservable(retries.pipe(mergeMap((id) => ledger.take(id)))).toBe('---------xy', {
        x: { taken: false, reason: 'evicted', detail: FULL_SERVER },
        y: { taken: false, reason: 'unknown' },
      });
    });
  });

  test('tombstones are bounded by the total cap: the oldest goes first', () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { ledger } = ledgerOn(ts, { maxPerHolder: 1, maxPerPeer: 2, maxTotal: 2 }, 1000);
      ts.schedule(() => {
        // X fills the server; each newcomer peer then evicts the oldest ticket of a fullest peer: t1 to t5 go.
        ledger.admitNow(as('x1', 'X'));
        ledger.admitNow(as('x2', 'X'));
        for (let i = 0; i < 5; i++) ledger.admitNow(as(`y${i}`, `Y${i}`));
        const misses = ['t1', 't2', 't3', 't4', 't5'].map((id) => ledger.takeNow(id));
        expect(misses.filter((m) => !m.taken && m.reason === 'evicted')).toHaveLength(2);
        expect(misses.slice(0, 3).every((m) => !m.taken && m.reason === 'unknown')).toBe(true);
      }, 0);
    });
  });

  test("a dropped holder's tickets free their slots and cannot be taken", () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { ledger, counts } = ledgerOn(ts);
      ts.schedule(() => {
        ledger.admitNow(as('gone', 'P'));
        ledger.admitNow(as('gone', 'P'));
        ledger.admitNow(as('stays', 'P'));
        expect(ledger.dropHolderNow('gone')).toBe(2);
        expect([counts.total(), counts.heldByPeer('P'), ledger.takeNow('t1').taken]).toEqual([1, 1, false]);
      }, 0);
    });
  });

  test('events name the owner by a tag, never by its key', () => {
    const ts = newTestScheduler();
    ts.run(() => {
      const { ledger, events } = ledgerOn(ts);
      ts.schedule(() => {
        ledger.admitNow(as('principal:alice@example.com'));
        ledger.admitNow(as('principal:alice@example.com'));
        ledger.admitNow(as('principal:bob@example.com'));
      }, 0);
      ts.schedule(() => {
        const owners = events.map((e) => ('owner' in e ? e.owner : ''));
        expect(JSON.stringify(events)).not.toContain('alice');
        expect(owners[0]).toBe(owners[1]);
        expect(owners[0]).not.toBe(owners[2]);
        expect(events[1]).toMatchObject({ type: 'approval_issued', outstanding: 2 });
      }, 1);
    });
  });
});

