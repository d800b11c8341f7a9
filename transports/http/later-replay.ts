/**
 * Resuming from a shared event store, whose replay arrives later (another
 * process, such as Redis): the session goes on sending meanwhile, and those
 * events may or may not be in the replay, depending on when the store read
 * it. `LaterReplays` notes what a session sends while any replay is on its
 * way (at most `maxNoted` events per replay), and `complete` adds to a
 * replay what it missed of its stream, once each, in order; or says the
 * note overflowed, and then the resumed stream carries the replay and ends,
 * so the client resumes again from what it got.
 */
import type { Replay, StoredEvent } from '../../lib/ports/event-store.js';

interface Noted {
  readonly events: (StoredEvent & { readonly streamId: string })[];
  overflowed: boolean;
}

export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function';
}

export class LaterReplays {
  private readonly waiting = new Set<Noted>();

  constructor(private readonly maxNoted: number) {}

  /** The session sent `data` as `id` on `streamId`. */
  sent(streamId: string, id: string, data: string): void {
    for (const noted of this.waiting) {
      if (noted.events.length < this.maxNoted) noted.events.push({ streamId, id, data });
      else noted.overflowed = true;
    }
  }

  /** Waits for `pending`, noting what is sent meanwhile: the replay with what it missed, undefined (an unknown cursor), or 'overflowed' with the replay alone. */
  async await(pending: PromiseLike<Replay | undefined>): Promise<{ replay: Replay | undefined; overflowed: boolean }> {
    const noted: Noted = { events: [], overflowed: false };
    this.waiting.add(noted);
    let replay: Replay | undefined;
    try {
      replay = await pending;
    } finally {
      this.waiting.delete(noted);
    }
    if (replay === undefined || noted.overflowed) return { replay, overflowed: noted.overflowed };
    const streamId = replay.streamId;
    const seen = new Set(replay.events.map((event) => event.id));
    const missed = noted.events.filter((event) => event.streamId === streamId && !seen.has(event.id)).map(({ id, data }) => ({ id, data }));
    return { replay: { streamId, events: [...replay.events, ...missed] }, overflowed: false };
  }
}
