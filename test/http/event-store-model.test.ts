/**
 * InMemoryEventStore against a plain model of its contract (Maps in
 * insertion order, the oldest evicted first): same ids, same replays, same
 * counts, under random appends, resumptions and session deletions.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { InMemoryEventStore, type Replay } from '../../transports/index.js';
import { storedEventBytes, storedSessionBytes } from '../../lib/ports/event-store.js';

interface ModelEntry {
  readonly sessionId: string;
  readonly streamId: string;
  readonly id: string;
  readonly data: string | null;
}

class ModelStore {
  private readonly sessions = new Map<string, { nextSeq: number; entries: Map<string, ModelEntry> }>();
  private readonly all = new Set<ModelEntry>();
  private bytes = 0;

  constructor(private readonly bounds: { maxEventsPerSession: number; maxEvents: number; maxBytes: number }) {}

  append(sessionId: string, streamId: string, data: string | null): string {
    let log = this.sessions.get(sessionId);
    if (log === undefined) {
      this.sessions.set(sessionId, (log = { nextSeq: 1, entries: new Map() }));
      this.bytes += storedSessionBytes(sessionId);
    }
    const entry = { sessionId, streamId, id: `${streamId}_${log.nextSeq++}`, data };
    log.entries.set(entry.id, entry);
    this.all.add(entry);
    this.bytes += storedEventBytes(streamId, entry.id, data);
    while (log.entries.size > this.bounds.maxEventsPerSession) this.evict([...log.entries.values()][0]!);
    while (this.all.size > this.bounds.maxEvents || (this.bytes > this.bounds.maxBytes && this.all.size > 0)) this.evict([...this.all][0]!);
    return entry.id;
  }

  replayAfter(sessionId: string, lastEventId: string): Replay | undefined {
    const log = this.sessions.get(sessionId);
    const cursor = log?.entries.get(lastEventId);
    if (log === undefined || cursor === undefined) return undefined;
    const entries = [...log.entries.values()];
    const after = entries.slice(entries.indexOf(cursor) + 1);
    const events = after.filter((e) => e.streamId === cursor.streamId && e.data !== null).map((e) => ({ id: e.id, data: e.data! }));
    return { streamId: cursor.streamId, events };
  }

  deleteSession(sessionId: string): void {
    for (const entry of this.sessions.get(sessionId)?.entries.values() ?? []) this.evict(entry);
    if (this.sessions.delete(sessionId)) this.bytes -= storedSessionBytes(sessionId);
  }

  size() {
    return { events: this.all.size, bytes: this.bytes, sessions: this.sessions.size };
  }

  private evict(entry: ModelEntry): void {
    this.all.delete(entry);
    this.sessions.get(entry.sessionId)?.entries.delete(entry.id);
    this.bytes -= storedEventBytes(entry.streamId, entry.id, entry.data);
  }
}

const sessionId = fc.constantFrom('s1', 's2', 's3');
const operation = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('append' as const), sessionId, streamId: fc.constantFrom('g1', 'p2', 'p3'), data: fc.option(fc.string({ maxLength: 12 })) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('replay' as const), sessionId, pick: fc.nat(), unknown: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), sessionId }) },
);

describe('InMemoryEventStore matches its model', () => {
  test('ids, replays and counts, with every bound in play', () => {
    fc.assert(
      fc.property(
        fc.record({ maxEventsPerSession: fc.integer({ min: 1, max: 20 }), maxEvents: fc.integer({ min: 1, max: 40 }), maxBytes: fc.integer({ min: 1, max: 4000 }) }),
        fc.array(operation, { maxLength: 400 }),
        (bounds, operations) => {
          const store = new InMemoryEventStore(bounds);
          const model = new ModelStore(bounds);
          const ids: string[] = [];
          for (const step of operations) {
            if (step.op === 'append') {
              const id = store.append(step.sessionId, step.streamId, step.data);
              expect(id).toBe(model.append(step.sessionId, step.streamId, step.data));
              ids.push(id);
            } else if (step.op === 'replay') {
              const id = step.unknown || ids.length === 0 ? `g1_${step.pick % 50}x` : ids[step.pick % ids.length]!;
              expect(store.replayAfter(step.sessionId, id)).toEqual(model.replayAfter(step.sessionId, id));
            } else {
              store.deleteSession(step.sessionId);
              model.deleteSession(step.sessionId);
            }
            expect(store.size()).toEqual(model.size());
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('stays bounded over a long run of one busy session', () => {
    const store = new InMemoryEventStore({ maxEventsPerSession: 512 });
    let last = '';
    for (let i = 0; i < 100_000; i += 1) last = store.append('s', i % 2 === 0 ? `p${i}` : `p${i - 1}`, i % 2 === 0 ? null : '{}');
    let bytes = storedSessionBytes('s');
    for (let i = 100_000 - 512; i < 100_000; i += 1) {
      const stream = i % 2 === 0 ? `p${i}` : `p${i - 1}`;
      bytes += storedEventBytes(stream, `${stream}_${i + 1}`, i % 2 === 0 ? null : '{}');
    }
    expect(store.size()).toEqual({ events: 512, bytes, sessions: 1 });
    expect(store.replayAfter('s', last)).toEqual({ streamId: 'p99998', events: [] });
  });
});
