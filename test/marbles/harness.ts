/**
 * Shared pieces for the virtual-clock tests: a TestScheduler that asserts
 * with vitest, JSON-RPC message builders, tools whose duration is virtual
 * (`timer(ms, scheduler)`) and that record when they start, finish or see
 * their AbortSignal fire, and a recorder of a connection's outbound frames.
 *
 * Inbound marble values may be thunks: they are called at emission time, so
 * a message can carry an id (an elicitation id) only known mid-run.
 */
import { map, tap, timer, type MonoTypeOperatorFunction, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { expect } from 'vitest';
import { allowlist, createServer, Registry, type ServerOptions } from '../../lib/index.js';
import type { McpServer } from '../../streams/mcp-server.js';
import type { OutboundMessage } from '../../lib/protocol/jsonrpc.js';
import type { ToolDef } from '../../lib/tool-def.js';

export function newTestScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

export type Msg = Record<string, unknown>;

export const initialize = (id: unknown, capabilities: Msg = { elicitation: {} }): Msg => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'marbles', version: '1' } },
});

export const toolCall = (id: unknown, name: string, args: Msg = {}): Msg => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

export const readResource = (id: unknown, uri: string): Msg => ({
  jsonrpc: '2.0',
  id,
  method: 'resources/read',
  params: { uri },
});

export const cancelled = (requestId: unknown): Msg => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'test' },
});

export type ElicitationAction = 'approve' | 'decline' | 'accept-without-approve';

export function elicitationAnswer(elicitationId: unknown, action: ElicitationAction): Msg {
  const result =
    action === 'approve'
      ? { action: 'accept', content: { approve: true } }
      : action === 'decline'
        ? { action: 'decline' }
        : { action: 'accept', content: { approve: false } };
  return { jsonrpc: '2.0', id: elicitationId, result };
}

/** Inbound values that are thunks are evaluated when they are emitted. */
export function resolveThunks(inbound$: Observable<unknown>): Observable<unknown> {
  return inbound$.pipe(map((value) => (typeof value === 'function' ? (value as () => unknown)() : value)));
}

export function textResult(id: unknown, text: string, isError?: true): Msg {
  const result: Msg = { content: [{ type: 'text', text }] };
  if (isError) result.isError = true;
  return { jsonrpc: '2.0', id, result };
}

export function deniedAsk(id: unknown, tool: string, detail: string): Msg {
  return textResult(id, JSON.stringify({ error: 'authorization_required', tool, decision: 'ask', detail }), true);
}

export const ELICITATION_ID = expect.stringMatching(/^rxmcp-elicit-[A-Za-z0-9_-]{16,}$/);

export function elicitationCreate(): Msg {
  return expect.objectContaining({ jsonrpc: '2.0', id: ELICITATION_ID, method: 'elicitation/create' });
}

/** The id of an elicitation/create request; undefined for any other message. */
export function elicitationIdOf(message: OutboundMessage): string | undefined {
  if (!('method' in message) || message.method !== 'elicitation/create') return undefined;
  return String((message as { id?: unknown }).id);
}

/** Collects the ids of the elicitation/create requests passing by, for answers sent later as thunks. */
export function collectElicitationIds(ids: string[]): MonoTypeOperatorFunction<OutboundMessage> {
  return tap((message) => {
    const id = elicitationIdOf(message);
    if (id !== undefined) ids.push(id);
  });
}

/** What one virtual-time tool did, frame by frame. */
export interface ToolLog {
  readonly started: number[];
  readonly finished: number[];
  readonly aborted: number[];
}

export function newToolLog(): ToolLog {
  return { started: [], finished: [], aborted: [] };
}

/** A tool that takes `ms` of virtual time (or `args.ms`) and answers `done`. */
export function sleepTool(name: string, ms: number, scheduler: SchedulerLike, log: ToolLog): ToolDef {
  return {
    name,
    handler: (args, ctx) => {
      log.started.push(scheduler.now());
      ctx.signal.addEventListener('abort', () => log.aborted.push(scheduler.now()), { once: true });
      const duration = typeof args.ms === 'number' ? args.ms : ms;
      return timer(duration, scheduler).pipe(
        map(() => {
          log.finished.push(scheduler.now());
          return 'done';
        }),
      );
    },
  };
}

export interface Frame {
  readonly frame: number;
  readonly message: OutboundMessage;
}

/** Subscribes to a connection at the current frame and records what it receives. */
export class Recorder {
  readonly frames: Frame[] = [];
  readonly subscription: Subscription;
  completedAt: number | undefined;
  /** An outbound stream must never error; a test asserts this stays empty. */
  readonly errors: unknown[] = [];

  constructor(outbound$: Observable<OutboundMessage>, scheduler: SchedulerLike) {
    this.subscription = outbound$.subscribe({
      next: (message) => this.frames.push({ frame: scheduler.now(), message }),
      error: (error: unknown) => this.errors.push(error),
      complete: () => {
        this.completedAt = scheduler.now();
      },
    });
  }

  /** The id of the n-th elicitation/create this connection received. */
  elicitationId(n = 0): string {
    const found = this.frames.filter((f) => 'method' in f.message && f.message.method === 'elicitation/create')[n];
    if (found === undefined) throw new Error(`no elicitation/create #${n} yet`);
    return (found.message as { id: string }).id;
  }

  /** Replies (messages with a result or an error) to `id`. */
  repliesTo(id: unknown): Frame[] {
    return this.frames.filter((f) => ('result' in f.message || 'error' in f.message) && f.message.id === id);
  }
}

/** `server.connect` over the memory transport, with thunk values in `inbound$` resolved at emission. */
export function connectMarbles(server: McpServer, connId: string, inbound$: Observable<unknown>): Observable<OutboundMessage> {
  return server.connect(connId, resolveThunks(inbound$), { transport: 'memory' });
}

/** Connects `connId` with `inbound$` (thunks resolved) and records its outbound frames. */
export function record(server: McpServer, connId: string, inbound$: Observable<unknown>, scheduler: SchedulerLike): Recorder {
  return new Recorder(connectMarbles(server, connId, inbound$), scheduler);
}

export const ZERO_STATS = { inFlight: 0, parked: 0, connections: 0, outstandingRequests: 0 };

/**
 * A server on `scheduler` whose `guarded` tool needs the user's approval
 * (the authorizer asks "Run guarded?") and whose `allowed` tools just run.
 */
export function askingServer(
  scheduler: SchedulerLike,
  tools: readonly ToolDef[],
  options: Omit<ServerOptions, 'registry' | 'scheduler' | 'authorizer' | 'authorizerSource'> & { allowed?: readonly string[] } = {},
): McpServer {
  const { allowed = [], ...rest } = options;
  return createServer({
    registry: new Registry().registerTools(tools),
    scheduler,
    authorizer: allowlist(allowed, { ask: { guarded: 'Run guarded?' } }),
    authorizerSource: 'configured',
    ...rest,
  });
}
