/**
 * The state one server owns, handed to every stage. Nothing here is module
 * level: two servers in one process share nothing.
 */
import type { Observable, Subject } from 'rxjs';
import type { Principal } from '../../lib/auth/principal.js';
import type { ConnId, TransportKind } from '../../lib/context.js';
import type { ServerEvent } from '../../lib/events.js';
import type { ResolvedOptions } from '../../lib/options.js';
import type { JsonRpcId, JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import type { Era, ModernRequest } from '../../lib/protocol/modern.js';
import type { Admission } from './admission.js';
import type { Cancellations } from './cancellation.js';
import type { CapabilityTable } from './capability-table.js';
import type { ClientRequests } from './client-requests.js';
import type { DeadlineQueue } from '../../lib/deadline-queue.js';
import type { EraDecision } from '../../lib/protocol/classified.js';
import type { ListenHub } from './listen-hub.js';
import type { Connections } from './connections.js';
import type { ApprovalDeps } from '../mrtr-approval.js';
import type { ParkingLot } from './parking.js';
import type { Tracing } from '../tracing.js';
import type { ReplyStream } from '../reply-stream.js';
import type { ResultMemberContext } from '../../lib/extension.js';
import type { FirstAnswer, TaskDecision } from '../tasks/task-created.js';
import type { Eventual, LazyAbort } from '../worker.js';
import type { ToolDef } from '../../lib/tool-def.js';

export interface ServerCore {
  readonly options: ResolvedOptions;
  readonly admission: Admission;
  readonly parking: ParkingLot;
  /** Modern approval tickets and sealed requestState (MRTR); shares its caps with `parking`. */
  readonly approvals: ApprovalDeps;
  readonly capabilities: CapabilityTable;
  readonly clientRequests: ClientRequests;
  /** Every worker's callback timeout, as one timer. */
  readonly deadlines: DeadlineQueue;
  readonly connections: Connections;
  readonly events: Subject<ServerEvent>;
  /** The calls a client may cancel with notifications/cancelled. */
  readonly cancellations: Cancellations;
  /** Tools already warned about for returning undefined (one warning per tool). */
  readonly toolsWarnedUndefined: WeakSet<object>;
  /** The OpenTelemetry tracer source; null when @opentelemetry/api is not installed. */
  readonly tracing: Tracing | null;
  /** The open subscriptions/listen streams and their bounds. */
  readonly listens: ListenHub;
  /** The server's extensions: their methods per era, declared capabilities and result members. */
  readonly extensions: ServerExtensions;
  /** The tasks extension's state (tasks/task-service.ts); null when the server does not speak tasks. */
  readonly tasks: ServerTasks | null;
}

/** The tasks extension as the core uses it (tasks/task-service.ts implements it). */
export interface ServerTasks {
  /** Whether this tools/call runs as a task, plainly, or is refused -32021. */
  decide(scope: RequestScope, tool: ToolDef): TaskDecision;
  /** Starts a task-bound call: the request's answer is the handler's (in time) or the created task. */
  start(scope: RequestScope, tool: ToolDef, args: Record<string, unknown>, requestAbort: LazyAbort): Eventual<FirstAnswer>;
  /** Whether an authorizer's ask on this request becomes an approval task rather than an MRTR round. */
  approvesAsTask(scope: RequestScope): boolean;
  /** The ask as an approval task: the task created, or the deny. */
  approve(scope: RequestScope, tool: ToolDef, args: Record<string, unknown>, prompt: string): Promise<FirstAnswer>;
  /** The task as tasks/get shows it, when `owner` owns it (else undefined): a listen stream's notifications/tasks. */
  detailedFor(taskId: string, owner: string): Observable<Record<string, unknown> | undefined>;
  /** A connection is gone: the tasks it alone owned (its owner key is the connection) are cancelled. */
  connectionGone(connId: string): void;
  /** The 2025-11-25 `capabilities.tasks` initialize declares. */
  legacyCapability(): Record<string, unknown>;
  /** Tasks held by this process's store (undefined for a shared store). */
  outstanding(): number | undefined;
  /** Task handlers running on this process. */
  readonly runs: { readonly size: number };
  /** `server.close()`: every task handler here stopped, the store closed. */
  close(): void;
}

/** What an extension adds to another method's successful result (Extension.resultMembers), with its extension's id. */
export interface ExtensionResultMember {
  readonly id: string;
  readonly add: (result: Readonly<Record<string, unknown>>, ctx: ResultMemberContext) => Record<string, unknown> | undefined;
}

/**
 * One server's extensions as the spine reads them; built by
 * extensions/extension-table.ts (declared here, beside MethodHandler, so
 * the server's state imports no handler).
 */
export interface ServerExtensions {
  /** The identifiers this server declares. */
  readonly ids: ReadonlySet<string>;
  /** An extension's method on this era, or undefined. */
  method(era: Era, name: string): MethodHandler | undefined;
  /** Whether a modern request for `name` has an extension method to go to. */
  hasModern(name: string): boolean;
  /** The server's capabilities with `extensions` declared; `base` itself when there is none. */
  capabilities<T extends object>(base: T): T;
  /** What extensions add to each method's results, by method; null when no extension adds any (read per request: a map, no call). */
  readonly resultMembers: ReadonlyMap<string, readonly ExtensionResultMember[]> | null;
}

/**
 * Where a request came from and where its reply goes. In `reply` mode the
 * reply is the eventual response, however long a parked call takes (connect,
 * request). In `push` mode a parked call answers `null` at once and its
 * eventual response is pushed to the connection (handleMessage), so a caller
 * that waits for each reply stays free to read the elicitation answer.
 */
export interface Origin {
  readonly connId: ConnId;
  readonly transport: TransportKind;
  /**
   * The fairness key of the caller: `principal:<key>` when a principal is
   * known, else ConnectOptions.peer, else the connection id.
   */
  readonly peer: string;
  /** The verified caller, set by the transport or the embedding application; never read from a message. */
  readonly principal?: Principal;
  readonly mode: 'reply' | 'push';
  /**
   * How this connection's requests get their era (stages/decide-era.ts), the
   * legacy initialization phase included; undefined: each request by its own
   * claim (direct callers).
   */
  readonly eraDecision?: EraDecision;
}

export interface RequestScope extends Origin {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  /** The era this request is served under, decided before any method runs (see lib/protocol/modern.ts). */
  readonly era: Era;
  /** The modern request's validated envelope; present exactly when `era` is 'modern'. */
  readonly modern?: ModernRequest;
}

/**
 * A method emits one reply, or `null` where the contract answers none (a
 * parked call in push mode). Its stream is read by the request's FirstReply
 * (reply-stream.ts), which keeps the exactly-once whatever the stream does;
 * a DirectSource (a worker) is opened without a Subscriber in between.
 */
export type MethodHandler = (core: ServerCore, scope: RequestScope) => ReplyStream<JsonRpcResponse | null>;

/** A reply as an era's wire has it (the encode stage applies it to a request's first reply). */
export type ReplyEncoder = (core: ServerCore, scope: RequestScope, reply: JsonRpcResponse | null) => JsonRpcResponse | null;
