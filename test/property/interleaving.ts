/**
 * The model for the interleaving property: a command language (open a
 * connection, call a tool through connect / request / handleMessage, answer
 * an elicitation, cancel, close, advance the virtual clock), a driver that
 * runs a command list against one server on a VirtualTimeScheduler, and the
 * invariants it checks, returned as a list of violations (empty = pass):
 *
 * - nothing throws, no outbound stream errors or ends unasked;
 * - every request gets at most one reply, only on its own connection; none
 *   gets zero unless something excused it (a cancel of any kind, its caller
 *   giving up, its connection closing); none gets a reply after a definite
 *   cancellation;
 * - every handler that started either finished or saw its signal abort, none
 *   starts or finishes after its call was definitely cancelled, and an
 *   asked-for tool only ever starts after its owner approved it;
 * - after every connection closes and time passes, the server holds nothing.
 */
import fc from 'fast-check';
import { map, Subject, timer, VirtualTimeScheduler, type Subscription } from 'rxjs';
import { CallerGoneError, createServer, Registry, type McpServer, type RequestRef } from '../../lib/index.js';
import type { OutboundMessage } from '../../lib/protocol/jsonrpc.js';

export const CALLBACK_TIMEOUT_MS = 25;
export const ELICITATION_TIMEOUT_MS = 40;
const SLOTS = ['c0', 'c1', 'c2'] as const;

type Via = 'connect' | 'request' | 'handle';
type Action = 'approve' | 'decline' | 'accept' | 'cancel' | 'none' | 'error';

export type Command =
  | { readonly kind: 'open'; readonly slot: number; readonly elicit: boolean }
  | {
      readonly kind: 'call';
      readonly slot: number;
      readonly via: Via;
      readonly tool: 'sleep' | 'ask';
      readonly ms: number;
      readonly signal: boolean;
      readonly timeoutMs: number | undefined;
    }
  | { readonly kind: 'answer'; readonly pick: number; readonly action: Action; readonly from: 'owner' | 'other' | 'bogus'; readonly via: 'connect' | 'handle' }
  | { readonly kind: 'cancelNote'; readonly pick: number; readonly onOwner: boolean }
  | { readonly kind: 'cancelRef'; readonly pick: number }
  | { readonly kind: 'abort'; readonly pick: number }
  | { readonly kind: 'close'; readonly slot: number; readonly how: 'unsubscribe' | 'complete' }
  | { readonly kind: 'advance'; readonly ms: number };

const slot = fc.integer({ min: 0, max: SLOTS.length - 1 });

export const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('open' as const), slot, elicit: fc.boolean() }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      slot,
      via: fc.constantFrom<Via>('connect', 'connect', 'request', 'handle'),
      tool: fc.constantFrom('sleep' as const, 'ask' as const),
      ms: fc.integer({ min: 0, max: CALLBACK_TIMEOUT_MS + 10 }),
      signal: fc.boolean(),
      timeoutMs: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      pick: fc.nat(),
      action: fc.constantFrom<Action>('approve', 'approve', 'decline', 'accept', 'cancel', 'none', 'error'),
      from: fc.constantFrom('owner' as const, 'owner' as const, 'other' as const, 'bogus' as const),
      via: fc.constantFrom('connect' as const, 'handle' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancelNote' as const), pick: fc.nat(), onOwner: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelRef' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), slot, how: fc.constantFrom('unsubscribe' as const, 'complete' as const) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 50 }) }) },
);

interface SlotState {
  readonly connId: string;
  status: 'new' | 'open' | 'closed';
  inbound?: Subject<unknown>;
  subscription?: Subscription;
  closedBy?: 'unsubscribe' | 'complete';
  ended: boolean;
}

interface Excuse {
  readonly seq: number;
  /** A definite cancellation: no reply may follow it. */
  readonly definite: boolean;
  readonly why: string;
}

interface Tracked {
  readonly id: number;
  readonly connId: string;
  readonly via: Via;
  readonly tool: 'sleep' | 'ask';
  readonly replies: Array<{ seq: number; source: string }>;
  readonly excuses: Excuse[];
  ref?: RequestRef;
  controller?: AbortController;
  settled: boolean;
  elicitationId?: string;
  approvedByOwnerAt?: number;
}

interface Run {
  readonly requestId: unknown;
  readonly tool: string;
  readonly startedAt: number;
  finishedAt?: number;
  abortedAt?: number;
}

const ZERO = { inFlight: 0, parked: 0, connections: 0, outstandingRequests: 0, capabilityEntries: 0 };

function isReply(message: OutboundMessage): message is OutboundMessage & { id: unknown } {
  return 'id' in message && !('method' in message) && ('result' in message || 'error' in message);
}

function answerMessage(elicitationId: unknown, action: Action): Record<string, unknown> {
  if (action === 'error') return { jsonrpc: '2.0', id: elicitationId, error: { code: -1, message: 'no' } };
  const result =
    action === 'approve'
      ? { action: 'accept', content: { approve: true } }
      : action === 'accept'
        ? { action: 'accept', content: { approve: false } }
        : action === 'none'
          ? {}
          : { action };
  return { jsonrpc: '2.0', id: elicitationId, result };
}

export class Interleaving {
  readonly violations: string[] = [];
  private readonly clock = new VirtualTimeScheduler();
  private readonly server: McpServer;
  private readonly slots: SlotState[] = SLOTS.map((connId) => ({ connId, status: 'new', ended: false }));
  private readonly tracked: Tracked[] = [];
  private readonly byId = new Map<number, Tracked>();
  private readonly elicitations: Array<{ id: string; owner: string; call: Tracked | undefined }> = [];
  private readonly runs: Run[] = [];
  private seq = 0;
  private nextId = 1;
  /** The call being issued by the current command: a new elicitation/create belongs to it. */
  private issuing: Tracked | undefined;

  constructor() {
    const registry = new Registry();
    for (const tool of ['sleep', 'ask']) {
      registry.registerTool({
        name: tool,
        handler: (args, ctx) => {
          const run: Run = { requestId: ctx.requestId, tool, startedAt: this.seq };
          this.runs.push(run);
          ctx.signal.addEventListener('abort', () => (run.abortedAt = this.seq), { once: true });
          return timer(Number(args.ms), this.clock).pipe(map(() => ((run.finishedAt = this.seq), 'ok')));
        },
      });
    }
    this.server = createServer({
      registry,
      scheduler: this.clock,
      authorizer: (name) => (name === 'ask' ? { ask: 'Run ask?' } : 'allow'),
      authorizerSource: 'configured',
      callbackTimeoutMs: CALLBACK_TIMEOUT_MS,
      elicitationTimeoutMs: ELICITATION_TIMEOUT_MS,
      maxInFlight: 3,
      maxInFlightPerConnection: 2,
      maxParkedElicitations: 2,
      maxParkedElicitationsTotal: 3,
    });
  }

  /** Runs `commands` after opening c0 and c1 (both able to be asked), then closes everything and lets time pass. */
  async run(commands: readonly Command[]): Promise<string[]> {
    const opening: Command[] = [
      { kind: 'open', slot: 0, elicit: true },
      { kind: 'open', slot: 1, elicit: true },
    ];
    for (const cmd of [...opening, ...commands]) {
      this.seq += 1;
      try {
        this.step(cmd);
      } catch (error) {
        this.violations.push(`command ${this.seq} ${JSON.stringify(cmd)} threw: ${String(error)}`);
      }
      await drain();
    }
    this.seq += 1;
    for (const s of this.slots) if (s.status === 'open') this.close(s, 'unsubscribe');
    this.advance(10 * (CALLBACK_TIMEOUT_MS + ELICITATION_TIMEOUT_MS));
    await drain();
    this.checkEnd();
    return this.violations;
  }

  private step(cmd: Command): void {
    switch (cmd.kind) {
      case 'open':
        return this.open(this.slots[cmd.slot]!, cmd.elicit);
      case 'call':
        return this.call(cmd);
      case 'answer':
        return this.answer(cmd);
      case 'cancelNote':
        return this.cancelNote(cmd.pick, cmd.onOwner);
      case 'cancelRef': {
        const t = this.pickWhere(cmd.pick, (x) => x.ref !== undefined);
        if (t === undefined) return;
        if (!t.settled) t.excuses.push({ seq: this.seq, definite: true, why: 'cancel(ref)' });
        this.server.cancel(t.ref!);
        return;
      }
      case 'abort': {
        const t = this.pickWhere(cmd.pick, (x) => x.controller !== undefined);
        if (t === undefined || t.controller!.signal.aborted) return;
        if (!t.settled) t.excuses.push({ seq: this.seq, definite: true, why: 'signal aborted' });
        t.controller!.abort();
        return;
      }
      case 'close': {
        const s = this.slots[cmd.slot]!;
        if (s.status === 'open') this.close(s, cmd.how);
        return;
      }
      case 'advance':
        return this.advance(cmd.ms);
    }
  }

  private open(s: SlotState, elicit: boolean): void {
    if (s.status !== 'new') return;
    s.status = 'open';
    s.inbound = new Subject<unknown>();
    s.subscription = this.server.connect(s.connId, s.inbound, { transport: 'memory' }).subscribe({
      next: (message) => this.received(s, message),
      error: (error: unknown) => this.violations.push(`${s.connId}: outbound errored: ${String(error)}`),
      complete: () => {
        s.ended = true;
        if (s.status !== 'closed' || s.closedBy !== 'complete') this.violations.push(`${s.connId}: outbound completed unasked`);
      },
    });
    s.inbound.next({
      jsonrpc: '2.0',
      id: `init-${s.connId}`,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: elicit ? { elicitation: {} } : {}, clientInfo: { name: 'p', version: '1' } },
    });
  }

  private received(s: SlotState, message: OutboundMessage): void {
    if ('method' in message && message.method === 'elicitation/create') {
      const id = String((message as { id: unknown }).id);
      if (this.issuing === undefined) this.violations.push(`${s.connId}: elicitation/create outside a call (seq ${this.seq})`);
      else if (this.issuing.connId !== s.connId) this.violations.push(`${s.connId}: got the elicitation of a call on ${this.issuing.connId}`);
      else this.issuing.elicitationId = id;
      this.elicitations.push({ id, owner: s.connId, call: this.issuing });
      return;
    }
    if (!isReply(message) || typeof message.id !== 'number') return;
    const t = this.byId.get(message.id);
    if (t === undefined) {
      this.violations.push(`${s.connId}: reply to unknown id ${message.id}`);
      return;
    }
    if (t.connId !== s.connId) this.violations.push(`reply to ${t.id} (of ${t.connId}) delivered to ${s.connId}`);
    t.replies.push({ seq: this.seq, source: `push:${s.connId}` });
  }

  private call(cmd: Extract<Command, { kind: 'call' }>): void {
    const s = this.slots[cmd.slot]!;
    if (cmd.via === 'connect' && s.status !== 'open') return;
    const id = this.nextId++;
    const t: Tracked = { id, connId: s.connId, via: cmd.via, tool: cmd.tool, replies: [], excuses: [], settled: false };
    this.tracked.push(t);
    this.byId.set(id, t);
    const message = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: cmd.tool, arguments: { ms: cmd.ms } } };
    const seqOf = () => this.seq;
    this.issuing = t;
    try {
      if (cmd.via === 'connect') {
        s.inbound!.next(message);
        t.settled = true;
      } else if (cmd.via === 'request') {
        if (cmd.signal) t.controller = new AbortController();
        const pending = this.server.request(message, s.connId, t.controller ? { signal: t.controller.signal } : {});
        t.ref = pending.ref;
        pending.reply.then(
          (reply) => {
            t.settled = true;
            if (reply === null) return;
            if (!Object.is(reply.id, id)) this.violations.push(`request ${id}: reply id ${JSON.stringify(reply.id)}`);
            t.replies.push({ seq: seqOf(), source: 'request' });
          },
          (error: unknown) => this.violations.push(`request ${id}: reply rejected: ${String(error)}`),
        );
      } else {
        if (cmd.signal) t.controller = new AbortController();
        const options = { connId: s.connId, timeoutMs: cmd.timeoutMs, signal: t.controller?.signal };
        this.server.handleMessage(message, options).then(
          (reply) => {
            t.settled = true;
            if (reply === null) return;
            if (!Object.is(reply.id, id)) this.violations.push(`handle ${id}: reply id ${JSON.stringify(reply.id)}`);
            t.replies.push({ seq: seqOf(), source: 'handle' });
          },
          (error: unknown) => {
            t.settled = true;
            if (error instanceof CallerGoneError) t.excuses.push({ seq: seqOf(), definite: true, why: 'caller gave up' });
            else this.violations.push(`handle ${id}: rejected with ${String(error)}`);
          },
        );
      }
    } finally {
      this.issuing = undefined;
    }
  }

  private answer(cmd: Extract<Command, { kind: 'answer' }>): void {
    // Mostly one of the latest prompts: older ones have likely closed already.
    const recent = Math.min(this.elicitations.length, 3);
    const picked = recent === 0 ? undefined : this.elicitations[this.elicitations.length - 1 - (cmd.pick % recent)];
    if (picked === undefined && cmd.from !== 'bogus') return;
    const elicitationId = cmd.from === 'bogus' || picked === undefined ? `rxmcp-elicit-bogus${cmd.pick}` : picked.id;
    const sender =
      cmd.from === 'other' && picked !== undefined
        ? SLOTS[(SLOTS.indexOf(picked.owner as (typeof SLOTS)[number]) + 1 + (cmd.pick % 2)) % SLOTS.length]!
        : (picked?.owner ?? SLOTS[cmd.pick % SLOTS.length]!);
    if (cmd.from === 'owner' && cmd.action === 'approve' && picked?.call !== undefined) {
      picked.call.approvedByOwnerAt ??= this.seq;
    }
    const message = answerMessage(elicitationId, cmd.action);
    const s = this.slots.find((x) => x.connId === sender)!;
    if (cmd.via === 'connect' && s.status === 'open') {
      s.inbound!.next(message);
      return;
    }
    this.server.handleMessage(message, { connId: sender }).then(
      (reply) => {
        if (reply !== null) this.violations.push(`an elicitation answer got a reply: ${JSON.stringify(reply)}`);
      },
      (error: unknown) => this.violations.push(`an elicitation answer rejected: ${String(error)}`),
    );
  }

  private cancelNote(pick: number, onOwner: boolean): void {
    if (this.tracked.length === 0) return;
    const t = this.tracked[pick % this.tracked.length]!;
    const owner = this.slots.find((x) => x.connId === t.connId)!;
    const other = this.slots.find((x) => x.connId !== t.connId && x.status === 'open');
    const via = onOwner && owner.status === 'open' ? owner : other;
    if (via === undefined) return;
    // Only the owning connection's notifications/cancelled reaches a request; another's must change nothing.
    if (via === owner) t.excuses.push({ seq: this.seq, definite: true, why: 'notifications/cancelled' });
    via.inbound!.next({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: t.id } });
  }

  private close(s: SlotState, how: 'unsubscribe' | 'complete'): void {
    s.status = 'closed';
    s.closedBy = how;
    for (const t of this.tracked) {
      if (t.connId !== s.connId) continue;
      // A connect call's reply can no longer reach anyone. A request/handle call loses only what it parked on
      // this connection (the prompt, or the tool an approval started): a plain call runs on and replies.
      t.excuses.push({ seq: this.seq, definite: t.via === 'connect' || t.elicitationId !== undefined, why: `connection closed (${how})` });
    }
    if (how === 'unsubscribe') s.subscription!.unsubscribe();
    else s.inbound!.complete();
  }

  private advance(ms: number): void {
    const target = this.clock.frame + ms;
    this.clock.maxFrames = target;
    this.clock.flush();
    this.clock.frame = target;
  }

  private pickWhere(pick: number, predicate: (t: Tracked) => boolean): Tracked | undefined {
    const candidates = this.tracked.filter(predicate);
    return candidates.length === 0 ? undefined : candidates[pick % candidates.length];
  }

  private checkEnd(): void {
    for (const t of this.tracked) {
      const label = `${t.via} call ${t.id} (${t.tool} on ${t.connId})`;
      if (t.replies.length > 1) this.violations.push(`${label}: ${t.replies.length} replies ${JSON.stringify(t.replies)}`);
      if (t.replies.length === 0 && t.excuses.length === 0) this.violations.push(`${label}: no reply and nothing excused it`);
      if (!t.settled) this.violations.push(`${label}: its Promise never settled`);
      const firstDefinite = t.excuses.find((e) => e.definite);
      for (const reply of t.replies) {
        if (firstDefinite !== undefined && reply.seq >= firstDefinite.seq) {
          this.violations.push(`${label}: reply at ${reply.seq} after ${firstDefinite.why} at ${firstDefinite.seq}`);
        }
      }
    }
    for (const run of this.runs) {
      const label = `${run.tool} run for request ${String(run.requestId)}`;
      if (run.finishedAt === undefined && run.abortedAt === undefined) this.violations.push(`${label}: neither finished nor aborted`);
      if (run.finishedAt !== undefined && run.abortedAt !== undefined) this.violations.push(`${label}: finished and aborted`);
      const t = this.byId.get(run.requestId as number);
      const cancelledAt = t?.excuses.find((e) => e.definite);
      if (cancelledAt !== undefined && (run.startedAt >= cancelledAt.seq || (run.finishedAt ?? -1) >= cancelledAt.seq)) {
        this.violations.push(`${label}: ran on after ${cancelledAt.why} at ${cancelledAt.seq} (${JSON.stringify(run)})`);
      }
      if (run.tool === 'ask') {
        if (t?.approvedByOwnerAt === undefined || t.approvedByOwnerAt > run.startedAt) {
          this.violations.push(`${label}: started at ${run.startedAt} without its owner's approval`);
        }
      }
    }
    const stats = this.server.stats();
    for (const [key, value] of Object.entries(ZERO)) {
      if (stats[key as keyof typeof stats] !== value) this.violations.push(`stats().${key} is ${stats[key as keyof typeof stats]} at the end`);
    }
  }
}

/** Lets the Promise callbacks queued by a command run before the next command. */
function drain(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
